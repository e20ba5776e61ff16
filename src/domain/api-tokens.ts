import type { ApiTokenRecord } from '../store/people-store.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { hashSecret, isSecretShaped, newPersonalTokenId, newSecret, PERSONAL_TOKEN_PREFIX } from './ids.ts';
import { principalOfPerson } from './people.ts';
import type { Principal } from './roles.ts';
import { parseUtcInstant, toStored, toWire } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

/** `last_used_at` is kept to the minute: a script calling every second would otherwise write every second. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** What the admin API shows of a token (never the secret, which only its creation answers, once). */
export function apiTokenView(token: ApiTokenRecord) {
  return {
    token_id: token.token_id,
    user_id: token.user_id,
    name: token.name,
    created_at: toWire(token.created_at),
    expires_at: toWire(token.expires_at),
    last_used_at: toWire(token.last_used_at),
  };
}

/**
 * A new personal API token for the principal's person; the secret is answered this once and kept as a
 * digest. The admin token is no person: it cannot hold one (403, reason `role`). Nor can a personal
 * token make one: a token made by a token would outlive the deletion or expiry of the one that made it,
 * so a stolen token could make itself permanent. Tokens are made in a signed-in console session.
 */
export async function createApiToken(
  store: Store,
  clock: Clock,
  principal: Principal,
  body: { name: string; expires_at?: string | null },
): Promise<{ record: ApiTokenRecord; token: string }> {
  if (principal.user_id === null) {
    throw new IssuerError(
      'FORBIDDEN',
      'the admin token is no person and cannot hold personal API tokens; sign in as a person to make one',
      { reason: 'role', action: 'api_token.create' },
    );
  }
  if (principal.via === 'token') {
    throw new IssuerError(
      'FORBIDDEN',
      'a personal API token cannot make another personal API token; sign in to the console as yourself to make one',
      { reason: 'role', action: 'api_token.create' },
    );
  }
  const now = clock.now();
  let expiresAt: string | null = null;
  if (body.expires_at !== undefined && body.expires_at !== null) {
    const parsed = parseUtcInstant(body.expires_at);
    if (parsed === null || parsed.getTime() <= now.getTime()) {
      throw invalidRequest('expires_at must be an ISO 8601 UTC instant in the future', [
        { field: 'expires_at', problem: 'must be an ISO 8601 UTC instant in the future' },
      ]);
    }
    expiresAt = toStored(parsed);
  }
  const token = newSecret(PERSONAL_TOKEN_PREFIX);
  const record: ApiTokenRecord = {
    token_id: newPersonalTokenId(),
    token_hash: hashSecret(token),
    user_id: principal.user_id,
    name: body.name,
    created_at: toStored(now),
    expires_at: expiresAt,
    last_used_at: null,
  };
  noteAudit({ target: record.token_id });
  await store.people.createApiToken(record);
  return { record, token };
}

/** Whether a bearer credential is shaped like a personal API token (so it is looked up as one). */
export const isPersonalToken = (bearer: string): boolean => bearer.startsWith(PERSONAL_TOKEN_PREFIX);

const REFUSED =
  'a valid personal API token is required; this one is unknown, expired or revoked, or its person is disabled';

/**
 * The principal of a personal API token: the token and its person are read in one query on every
 * request (no cache that another instance's change could leave stale), so a deleted token, or a
 * disabled or deleted person, is refused at once everywhere. 401 otherwise.
 */
export async function authenticatePersonalToken(store: Store, clock: Clock, bearer: string): Promise<Principal> {
  if (!isSecretShaped(PERSONAL_TOKEN_PREFIX, bearer)) throw new IssuerError('UNAUTHORIZED', REFUSED);
  const found = await store.people.findApiToken(hashSecret(bearer));
  const now = toStored(clock.now());
  if (found === null || found.user.disabled_at !== null) throw new IssuerError('UNAUTHORIZED', REFUSED);
  const { token, user } = found;
  if (token.expires_at !== null && token.expires_at <= now) throw new IssuerError('UNAUTHORIZED', REFUSED);
  if (token.last_used_at === null || Date.parse(now) - Date.parse(token.last_used_at) >= LAST_USED_RESOLUTION_MS) {
    await store.people.touchApiToken(token.token_id, now);
  }
  return principalOfPerson(user, 'token');
}
