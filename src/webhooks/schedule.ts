/**
 * When a failed message is tried again: after the configured delay for its attempt, with ±10 % of
 * jitter (so that a receiver coming back is not met by every message at once; the contract allows
 * ±20 % with the worker's lateness included), or after the receiver's `Retry-After` when it asks
 * for at most an hour. Past the last delay, the message has failed.
 */
const MAX_RETRY_AFTER_S = 3600;
const JITTER = 0.1;

/** Seconds until the next attempt after failed attempt number `attempt` (1-based), or null: failed. */
export function retryDelaySeconds(
  schedule: readonly number[],
  attempt: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  const delay = schedule[attempt - 1];
  if (delay === undefined) return null;
  if (retryAfterSeconds !== null && retryAfterSeconds >= 0 && retryAfterSeconds <= MAX_RETRY_AFTER_S) {
    return retryAfterSeconds;
  }
  return delay * (1 - JITTER + 2 * JITTER * random());
}

/** A `Retry-After` header in seconds: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}
