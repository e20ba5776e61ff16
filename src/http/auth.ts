import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { checkApiKey, matchesHash, type RecentKeys, unauthorizedKey } from '../domain/credentials.ts';
import { IssuerError } from '../domain/errors.ts';
import type { ApiKeyRecord, Store } from '../store/store.ts';
import type { Clock } from '../domain/clock.ts';
import { toStored } from '../domain/time.ts';
import { authenticateAdminSession, sessionIdOf } from './admin-session.ts';
import { ADMIN_TOKEN_PRINCIPAL, type Principal } from '../domain/roles.ts';
import { authenticatePersonalToken, isPersonalToken } from '../domain/api-tokens.ts';
import { principalOfPerson } from '../domain/people.ts';

/** The bearer credential of a request, or null when the header is missing or not a Bearer one. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer +(\S{1,512}) *$/i.exec(header);
  return match?.[1] ?? null;
}

const DIGEST = Symbol('bearer digest');
type DigestedRequest = FastifyRequest & { [DIGEST]?: Buffer };

/**
 * The SHA-256 of the request's bearer credential, computed once per request: the rate limiter
 * names its counter after it (base64url) and authentication looks the key up by it (hex, as
 * `hashSecret` stores it). Null without a bearer credential.
 */
export function bearerDigest(request: FastifyRequest): Buffer | null {
  const memo = (request as DigestedRequest)[DIGEST];
  if (memo) return memo;
  const token = bearerToken(request);
  if (token === null) return null;
  const digest = createHash('sha256').update(token, 'utf8').digest();
  (request as DigestedRequest)[DIGEST] = digest;
  return digest;
}

/** `last_seen_at` is kept to the minute: a write per request would cost every status read a commit. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * Authenticates a scanner by its API key (401 otherwise) and records when it was last seen. With
 * `recent`, a key found within the last second is not looked up again (see `RecentKeys`).
 */
export async function authenticateScanner(
  request: FastifyRequest,
  store: Store,
  clock: Clock,
  recent: RecentKeys | null = null,
): Promise<ApiKeyRecord> {
  const digest = bearerDigest(request);
  if (digest === null) throw unauthorizedKey('unknown');
  const now = toStored(clock.now());
  const check = await checkApiKey(store, digest.toString('hex'), now, recent);
  if (!check.ok) throw unauthorizedKey(check.why);
  const lastSeen = check.key.last_seen_at;
  if (lastSeen === null || Date.parse(now) - Date.parse(lastSeen) >= LAST_SEEN_RESOLUTION_MS) {
    // The remembered record moves on first, so that the requests sharing it (a cached key, or one
    // lookup for a burst) do not each touch it while this write runs.
    check.key.last_seen_at = now;
    await store.scanners.touchApiKey(check.key.api_key_id, now);
  }
  return check.key;
}

/** Checks the organizer's admin token against its stored hash, in constant time. */
export function authenticateAdmin(request: FastifyRequest, adminTokenHash: string): void {
  const presented = bearerToken(request);
  if (!matchesHash(presented ?? '', adminTokenHash) || presented === null) {
    throw new IssuerError('UNAUTHORIZED', 'a valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>)');
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The scanner's API key, set by the scanner authentication hook. */
    scannerKey: ApiKeyRecord | null;
    /** Who acts on an admin request, set by the admin authentication hook. */
    principal: Principal | null;
  }
}

/** What log lines about a request add to name its scanner: the key id (safe to log), when there is one. */
export function scannerLogFields(request: FastifyRequest): { api_key_id?: string } {
  const key = request.scannerKey;
  return key ? { api_key_id: key.api_key_id } : {};
}

/** Who acts on an admin request; routes behind the admin authentication hook always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('admin route without its authentication hook');
  return request.principal;
}

/** The scanner key a route's authentication hook found; routes behind that hook always have one. */
export function scannerKeyOf(request: FastifyRequest): ApiKeyRecord {
  if (!request.scannerKey) throw new Error('scanner route without its authentication hook');
  return request.scannerKey;
}

/**
 * Authentication as an onRequest hook, so that a caller without a valid credential learns nothing
 * about bodies or headers: 401 comes before any validation. Failures also count against the
 * client IP (`onFailure`), so that guessing with ever new credentials is throttled too.
 */
export function authHooks(
  store: Store,
  clock: Clock,
  adminTokenHash: () => Promise<string>,
  onFailure: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  recent: RecentKeys,
): { scanner: onRequestAsyncHookHandler; scannerCheckIn: onRequestAsyncHookHandler; admin: onRequestAsyncHookHandler } {
  const guarded =
    (check: (request: FastifyRequest) => Promise<void> | void): onRequestAsyncHookHandler =>
    async (request, reply) => {
      try {
        await check(request);
      } catch (error) {
        if (error instanceof IssuerError && error.code === 'UNAUTHORIZED') await onFailure(request, reply);
        throw error;
      }
    };
  return {
    scanner: guarded(async (request) => {
      request.scannerKey = await authenticateScanner(request, store, clock);
    }),
    // Check-in judges the key again inside its transaction, so it may take a key found a moment ago.
    scannerCheckIn: guarded(async (request) => {
      request.scannerKey = await authenticateScanner(request, store, clock, recent);
    }),
    admin: guarded(async (request) => {
      // Scripts send a bearer token (the admin token, or a person's `iat_…`); the console's browser
      // sends its session cookie instead. A person's credential is read with the person, in one query.
      const bearer = bearerToken(request);
      if (bearer === null && sessionIdOf(request) !== null) {
        const { user } = await authenticateAdminSession(request, store, clock, adminTokenHash);
        request.principal = user === null ? ADMIN_TOKEN_PRINCIPAL : principalOfPerson(user, 'session');
      } else if (bearer !== null && isPersonalToken(bearer)) {
        request.principal = await authenticatePersonalToken(store, clock, bearer);
      } else {
        authenticateAdmin(request, await adminTokenHash());
        request.principal = ADMIN_TOKEN_PRINCIPAL;
      }
    }),
  };
}
