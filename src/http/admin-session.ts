import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { csrfTokenMatches, findAdminSession, type LiveSession } from '../domain/admin-sessions.ts';
import type { Clock } from '../domain/clock.ts';
import { IssuerError } from '../domain/errors.ts';
import type { Store } from '../store/store.ts';

/** The console's session cookie. */
export const SESSION_COOKIE = 'issuer_console_session';
/** The header carrying the session's CSRF token on cookie-authenticated writes. */
export const CSRF_HEADER = 'x-csrf-token';
/** The cookie goes only where it is needed: the admin API (the console's own files are public). */
const COOKIE_PATH = '/admin/v1';

/** Methods that change nothing; every other one is a write and needs the CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session cookie's attributes. Script never reads it (HttpOnly); SameSite=Strict keeps it off
 * every cross-site request; Secure whenever the issuer is reached over https.
 */
export function sessionCookieOptions(config: Config, request: FastifyRequest, expires?: Date): CookieSerializeOptions {
  const secure = config.baseUrl.startsWith('https:') || request.protocol === 'https';
  return { path: COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure, ...(expires ? { expires } : {}) };
}

/** The session id the browser sent, or null. */
export function sessionIdOf(request: FastifyRequest): string | null {
  const value = request.cookies?.[SESSION_COOKIE];
  return typeof value === 'string' && value !== '' ? value : null;
}

const SIGNED_OUT = 'the console session has ended or is unknown; sign in again';

/**
 * Authenticates a console request by its session cookie (401 otherwise; also once the admin token
 * has changed, or the session's person is disabled or gone); a write must also carry the session's
 * CSRF token in `X-CSRF-Token` (403 FORBIDDEN otherwise). Answers the session with its person.
 */
export async function authenticateAdminSession(
  request: FastifyRequest,
  store: Store,
  clock: Clock,
  adminTokenHash: () => Promise<string>,
): Promise<LiveSession> {
  const sessionId = sessionIdOf(request);
  const session = sessionId === null ? null : await findAdminSession(store, clock, sessionId, await adminTokenHash());
  if (sessionId === null || session === null) throw new IssuerError('UNAUTHORIZED', SIGNED_OUT);
  if (!SAFE_METHODS.has(request.method)) {
    const presented = request.headers[CSRF_HEADER];
    if (!csrfTokenMatches(sessionId, typeof presented === 'string' ? presented : null)) {
      throw new IssuerError(
        'FORBIDDEN',
        `a write with the session cookie needs the session's CSRF token in ${CSRF_HEADER}`,
      );
    }
  }
  return session;
}
