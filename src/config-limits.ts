/** The rate limits: every per-window limit, its setting and its default in one list. */
import { type Env, integer } from './config-read.ts';

/** Each limit's setting and default: what the configuration reads, and what tests and benchmarks lift. */
const LIMITS = {
  enrollPerIp: ['RATE_LIMIT_ENROLL_PER_IP', 30],
  enrollPerToken: ['RATE_LIMIT_ENROLL_PER_TOKEN', 5],
  checkInPerKey: ['RATE_LIMIT_CHECKIN_PER_KEY', 1200],
  statusPerKey: ['RATE_LIMIT_STATUS_PER_KEY', 600],
  adminPerToken: ['RATE_LIMIT_ADMIN_PER_TOKEN', 600],
  unknownRoutePerIp: ['RATE_LIMIT_NOT_FOUND_PER_IP', 60],
  authFailuresPerIp: ['RATE_LIMIT_AUTH_FAILURES_PER_IP', 30],
  /** Sign-ins, invitation acceptances and single sign-on per client address, whatever credential is presented. */
  signInPerIp: ['RATE_LIMIT_SIGNIN_PER_IP', 30],
  /** Scans per scanner key (each scan of an upload counts). */
  scansPerKey: ['RATE_LIMIT_SCANS_PER_KEY', 30_000],
  /** Apple Wallet's PassKit web service, per client address (devices call it without a person behind them). */
  walletPerIp: ['RATE_LIMIT_WALLET_PER_IP', 120],
} as const satisfies Record<string, readonly [string, number]>;

const MAX_LIMIT = 1_000_000_000;

export type RateLimits = { [name in keyof typeof LIMITS]: number } & { windowSeconds: number };

/** The limits the environment sets, each from 1 to a billion requests per window. */
export function rateLimits(env: Env): RateLimits {
  const limits = Object.fromEntries(
    Object.entries(LIMITS).map(([name, [setting, fallback]]) => [name, integer(env, setting, fallback, 1, MAX_LIMIT)]),
  ) as { [name in keyof typeof LIMITS]: number };
  return { ...limits, windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400) };
}

/**
 * Every rate limit set to `max`: for tests and benchmarks that measure or exercise something else
 * (a test of a limit sets its own on top).
 */
export function withoutRateLimits(max = MAX_LIMIT): Record<string, string> {
  return Object.fromEntries(Object.values(LIMITS).map(([setting]) => [setting, String(max)]));
}
