import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
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
  /** Counts a failed authentication of the client address (429 past its budget). */
  authFailuresPerIp: Hook;
  /**
   * Refuses (429) an address whose failure budget is spent, without counting anything: what the
   * people routes check before any password is hashed.
   */
  authBudgetPerIp: Hook;
  /** The people routes (sign-in, invitations, single sign-on), per client address whatever credential. */
  signInPerIp: Hook;
  /** Apple Wallet's web service, per client address. */
  walletPerIp: Hook;
  /** Counts an upload's scans against the key's scan budget (429 past it, the upload not applied). */
  scansPerKey: (request: FastifyRequest, reply: FastifyReply, scans: number) => Promise<void>;
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
  const refuse = (request: FastifyRequest, reply: FastifyReply, name: string, ttlInSeconds: number) => {
    const retryAfter = Math.max(1, ttlInSeconds);
    reply.header('retry-after', String(retryAfter));
    request.log.info({ limit: name }, 'rate limited');
    onLimited(name);
    return new IssuerError('RATE_LIMITED', `too many requests; retry after ${retryAfter} s`, {
      retry_after_seconds: retryAfter,
    });
  };
  /** One check of a limit: counted (or only read, `increment` false); answers whether it is exceeded. */
  const checked = async (request: FastifyRequest, key: string, increment = true) => {
    // Read synchronously by the key generator when the check starts, before anything is awaited.
    (request as LimitedRequest)[LIMIT_KEY] = key;
    return check(request, increment ? undefined : { increment: false });
  };
  const limiter = (name: string, max: number, keyOf: (request: FastifyRequest) => string): Hook => {
    maxOf.set(name, max);
    return async (request, reply) => {
      const result = await checked(request, `${name}:${keyOf(request)}`);
      if (result.isAllowed || !result.isExceeded) return;
      throw refuse(request, reply, name, result.ttlInSeconds);
    };
  };
  const authFailures = limiter('auth-failure', limits.authFailuresPerIp, (r) => r.ip);
  /** The failures counted so far: spent when they reach the budget (the next failure would be refused). */
  const authBudget: Hook = async (request, reply) => {
    const result = await checked(request, `auth-failure:${request.ip}`, false);
    if (result.isAllowed || result.remaining > 0) return;
    throw refuse(request, reply, 'auth-failure', result.ttlInSeconds);
  };
  maxOf.set('scans', limits.scansPerKey);
  /**
   * Each scan counts once: the counter moves by the upload's size (one counted check a scan, sent at
   * once). Past the budget the whole upload is refused; its scans stay queued on the device.
   */
  const scans = async (request: FastifyRequest, reply: FastifyReply, count: number) => {
    const key = `scans:${byBearer(request)}`;
    const results = await Promise.all(Array.from({ length: count }, () => checked(request, key)));
    for (const result of results) {
      if (!result.isAllowed && result.isExceeded) throw refuse(request, reply, 'scans', result.ttlInSeconds);
    }
  };
  return {
    enrollPerIp: limiter('enroll-ip', limits.enrollPerIp, (r) => r.ip),
    enrollPerToken: limiter('enroll-token', limits.enrollPerToken, byEnrollmentToken),
    checkInPerKey: limiter('check-in', limits.checkInPerKey, byBearer),
    statusPerKey: limiter('status', limits.statusPerKey, byBearer),
    changesPerKey: limiter('changes', limits.statusPerKey, byBearer),
    adminPerToken: limiter('admin', limits.adminPerToken, byBearer),
    unknownRoutePerIp: limiter('not-found', limits.unknownRoutePerIp, (r) => r.ip),
    authFailuresPerIp: authFailures,
    authBudgetPerIp: authBudget,
    signInPerIp: limiter('sign-in', limits.signInPerIp, (r) => r.ip),
    walletPerIp: limiter('wallet', limits.walletPerIp, (r) => r.ip),
    scansPerKey: scans,
  };
}
