import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RateLimits } from '../config.ts';
import { IssuerError } from '../domain/errors.ts';
import { sessionIdOf } from './admin-session.ts';
import { bearerDigest } from './auth.ts';

type Hook = onRequestAsyncHookHandler;

/** One hook per limit of CONTRACT.md; each counts in its own key space. */
export interface RateLimitHooks {
  enrollPerIp: Hook;
  enrollPerToken: Hook;
  checkInPerKey: Hook;
  statusPerKey: Hook;
  /** The changes feed, counted apart from status reads with the same allowance. */
  changesPerKey: Hook;
  adminPerToken: Hook;
  unknownRoutePerIp: Hook;
  authFailuresPerIp: Hook;
}

/**
 * Counters are keyed by a digest of the credential, never the credential itself: with Redis the
 * keys are stored outside the issuer, and a secret must not be stored in plain text anywhere.
 */
export function credentialKey(secret: string): string {
  return digestKey(createHash('sha256').update(secret).digest());
}

/** A counter's name from a credential's SHA-256. */
const digestKey = (digest: Buffer): string => digest.toString('base64url').slice(0, 32);

const LIMIT_KEY = Symbol('rate-limit key');
type LimitedRequest = FastifyRequest & { [LIMIT_KEY]?: string };

/** The max of each named limit, filled by `rateLimitHooks` and read by the plugin through `rateLimitOptions`. */
export type LimitMaxima = Map<string, number>;

/** The options of @fastify/rate-limit that make `rateLimitHooks` work: keys and maxima come from each limit. */
export function rateLimitOptions(limits: RateLimits, maxima: LimitMaxima) {
  return {
    global: false,
    timeWindow: limits.windowSeconds * 1000,
    keyGenerator: (request: FastifyRequest) => (request as LimitedRequest)[LIMIT_KEY] ?? `ip:${request.ip}`,
    max: (_request: FastifyRequest, key: string) => maxima.get(key.slice(0, key.indexOf(':'))) ?? 1,
  };
}

/**
 * Per credential (the bearer token, else the console's session cookie: organizers behind one venue
 * NAT do not share a budget); requests without a credential are counted per client IP instead.
 */
function byBearer(request: FastifyRequest): string {
  // The bearer's digest is the one authentication uses next: the credential is hashed once.
  const digest = bearerDigest(request);
  if (digest !== null) return `cred:${digestKey(digest)}`;
  const session = sessionIdOf(request);
  return session === null ? `ip:${request.ip}` : `cred:${credentialKey(session)}`;
}

function byEnrollmentToken(request: FastifyRequest): string {
  const token = (request.body as { token?: unknown } | undefined)?.token;
  return typeof token === 'string' ? `token:${credentialKey(token)}` : `ip:${request.ip}`;
}

/**
 * Builds the hooks on @fastify/rate-limit's `createRateLimit` (in process, or in Redis when the
 * plugin was given a client). Several limits may apply to one request (enrolment: per IP, then
 * per token), which the plugin's own route hook does not allow, hence these thin wrappers that
 * answer 429 RATE_LIMITED with `Retry-After` in the envelope.
 */
export function rateLimitHooks(
  app: FastifyInstance,
  limits: RateLimits,
  maxOf: LimitMaxima,
  onLimited: (limit: string) => void = () => undefined,
): RateLimitHooks {
  // One limiter with the plugin's global parameters: its per-call options would prefix every Redis
  // key with an empty route ("undefinedundefined-"). The key names the limit; the limit gives the max.
  const check = app.createRateLimit();
  const limiter = (name: string, max: number, keyOf: (request: FastifyRequest) => string): Hook => {
    maxOf.set(name, max);
    return async (request, reply) => {
      // Read synchronously by the key generator when the check starts, before anything is awaited.
      (request as LimitedRequest)[LIMIT_KEY] = `${name}:${keyOf(request)}`;
      const result = await check(request);
      if (result.isAllowed || !result.isExceeded) return;
      const retryAfter = Math.max(1, result.ttlInSeconds);
      reply.header('retry-after', String(retryAfter));
      request.log.info({ limit: name }, 'rate limited');
      onLimited(name);
      throw new IssuerError('RATE_LIMITED', `too many requests; retry after ${retryAfter} s`, {
        retry_after_seconds: retryAfter,
      });
    };
  };
  return {
    enrollPerIp: limiter('enroll-ip', limits.enrollPerIp, (r) => r.ip),
    enrollPerToken: limiter('enroll-token', limits.enrollPerToken, byEnrollmentToken),
    checkInPerKey: limiter('check-in', limits.checkInPerKey, byBearer),
    statusPerKey: limiter('status', limits.statusPerKey, byBearer),
    changesPerKey: limiter('changes', limits.statusPerKey, byBearer),
    adminPerToken: limiter('admin', limits.adminPerToken, byBearer),
    unknownRoutePerIp: limiter('not-found', limits.unknownRoutePerIp, (r) => r.ip),
    authFailuresPerIp: limiter('auth-failure', limits.authFailuresPerIp, (r) => r.ip),
  };
}
