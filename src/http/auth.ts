import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { checkApiKey, matchesHash } from '../domain/credentials.ts';
import { IssuerError } from '../domain/errors.ts';
import type { ApiKeyRecord, Store } from '../store/store.ts';
import type { Clock } from '../domain/clock.ts';
import { toStored } from '../domain/time.ts';
import { authenticateAdminSession, sessionIdOf } from './admin-session.ts';

/** The bearer credential of a request, or null when the header is missing or not a Bearer one. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer +(\S{1,512}) *$/i.exec(header);
  return match?.[1] ?? null;
}

/** `last_seen_at` is kept to the minute: a write per request would cost every status read a commit. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

const UNAUTHORIZED = 'a valid API key is required (Authorization: Bearer <API_KEY>)';

/** Authenticates a scanner by its API key (401 otherwise) and records when it was last seen. */
export async function authenticateScanner(request: FastifyRequest, store: Store, clock: Clock): Promise<ApiKeyRecord> {
  const presented = bearerToken(request);
  if (presented === null) throw new IssuerError('UNAUTHORIZED', UNAUTHORIZED);
  const now = toStored(clock.now());
  const check = await checkApiKey(store, presented, now);
  if (!check.ok) {
    const message = check.why === 'unknown' ? UNAUTHORIZED : `the API key is ${check.why}`;
    throw new IssuerError('UNAUTHORIZED', message);
  }
  request.log = request.log.child({ api_key_id: check.key.api_key_id });
  const lastSeen = check.key.last_seen_at;
  if (lastSeen === null || Date.parse(now) - Date.parse(lastSeen) >= LAST_SEEN_RESOLUTION_MS) {
    await store.touchApiKey(check.key.api_key_id, now);
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
  }
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
): { scanner: onRequestAsyncHookHandler; admin: onRequestAsyncHookHandler } {
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
    admin: guarded(async (request) => {
      // Scripts send the bearer token, unchanged; the console's browser sends its session cookie instead.
      if (bearerToken(request) === null && sessionIdOf(request) !== null) {
        await authenticateAdminSession(request, store, clock, adminTokenHash);
      } else {
        authenticateAdmin(request, await adminTokenHash());
      }
    }),
  };
}
