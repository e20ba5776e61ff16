import { isRateLimited, isTransient } from './errors.ts';

/** How long to keep trying when the issuer is down, slow or busy. */
export interface RetryPolicy {
  /** First back-off after a network error or a 5xx, doubled each time (default 200 ms). */
  initialBackoffMs: number;
  /** Tries of one request against network errors and 5xx (default 5: 200+400+800+1600 ms of waiting). */
  maxAttempts: number;
  /** No new try once this long has passed since the first failure (default 4 s). */
  budgetMs: number;
  /** Longest single wait a `Retry-After` may impose (default 60 s). */
  maxRetryAfterMs: number;
  /** Give up waiting on 429s once this long has passed since the operation began (default 5 min). */
  rateLimitBudgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialBackoffMs: 200,
  maxAttempts: 5,
  budgetMs: 4000,
  maxRetryAfterMs: 60_000,
  rateLimitBudgetMs: 300_000,
};

/** Clock and sleep, injected so that tests need not wait. */
export interface Timer {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realTimer: Timer = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Runs `attempt` until it succeeds or fails for good: on 429 waits `Retry-After` (a wait that does
 * not count as a try), on a network error or a 5xx backs off exponentially within the policy's
 * tries and time budget, and rethrows anything else (or the last transient error) at once.
 */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  timer: Timer = realTimer,
): Promise<T> {
  const began = timer.now();
  let firstFailure: number | null = null;
  let failures = 0;
  let backoff = policy.initialBackoffMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (isRateLimited(error)) {
        const wait = Math.min(Math.max((error.retryAfterSeconds ?? 1) * 1000, 100), policy.maxRetryAfterMs);
        if (timer.now() + wait - began > policy.rateLimitBudgetMs) throw error;
        await timer.sleep(wait);
        continue;
      }
      if (!isTransient(error)) throw error;
      failures += 1;
      firstFailure ??= timer.now();
      const spent = timer.now() - firstFailure;
      if (failures >= policy.maxAttempts || spent + backoff > policy.budgetMs) throw error;
      await timer.sleep(backoff);
      backoff *= 2;
    }
  }
}
