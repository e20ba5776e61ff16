import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RateLimits } from '../config.ts';
import { IssuerError } from '../domain/errors.ts';
import { bearerToken } from './auth.ts';

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
  return createHash('sha256').update(secret).digest('base64url').slice(0, 32);
}

/** Per credential; requests without a credential are counted per client IP instead. */
function byBearer(request: FastifyRequest): string {
  const token = bearerToken(request);
  return token === null ? `ip:${request.ip}` : `cred:${credentialKey(token)}`;
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
export function rateLimitHooks(app: FastifyInstance, limits: RateLimits): RateLimitHooks {
  const timeWindow = limits.windowSeconds * 1000;
  const limiter = (name: string, max: number, keyOf: (request: FastifyRequest) => string): Hook => {
    const check = app.createRateLimit({ max, timeWindow, keyGenerator: (request) => `${name}:${keyOf(request)}` });
    return async (request, reply) => {
      const result = await check(request);
      if (result.isAllowed || !result.isExceeded) return;
      const retryAfter = Math.max(1, result.ttlInSeconds);
      reply.header('retry-after', String(retryAfter));
      request.log.info({ limit: name }, 'rate limited');
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
