/** A device enrolled against a real issuer over a link the test can cut (all of it, or the roster alone). */
import { enroll, MemoryStorage, type RetryPolicy, Scanner } from '../src/index.ts';
import type { Issuer } from './issuer.ts';

/** One attempt, no waiting: a cut link fails at once. */
export const ONCE: RetryPolicy = {
  initialBackoffMs: 0,
  maxAttempts: 1,
  budgetMs: 0,
  maxRetryAfterMs: 0,
  rateLimitBudgetMs: 0,
};

/** A device enrolled with a token of these fields, its requests' paths kept; `down` cuts it off. */
export async function linkedDevice(
  issuer: Issuer,
  eid: string,
  token: Record<string, unknown>,
  storage = new MemoryStorage(),
) {
  const link = { down: false, rosterDown: false, paths: [] as string[] };
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    const path = new URL(String(input)).pathname;
    if (link.down || (link.rosterDown && path.endsWith('/roster'))) {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }
    link.paths.push(path);
    return fetch(input, init);
  }) as typeof fetch;
  const answer = await issuer.admin<{ setup_uri: string }>('POST', `/admin/v1/events/${eid}/enrollment-tokens`, token);
  const enrolled = await enroll(storage, answer.setup_uri, { fetch: fetchVia, retryPolicy: ONCE });
  const scanner = await Scanner.open(storage, { fetch: fetchVia, retryPolicy: ONCE });
  return { scanner, storage, link, enrolled, fetchVia };
}
