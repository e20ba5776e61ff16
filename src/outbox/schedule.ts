/**
 * When a failed item of an outbox (a webhook message, an email, a wallet push) is tried again: after the next delay of the schedule, with ±10 % of jitter
 * (so that a receiver coming back is not met by every message at once; the contract allows ±20 % with
 * the worker's lateness included), or after the receiver's `Retry-After` when it asks for at most an
 * hour. A Retry-After uses no delay of the schedule: the receiver said when, it did not fail for good.
 * Past the last delay, the item has failed. Each sender reads its own schedule through nextRetry.
 */
const MAX_RETRY_AFTER_S = 3600;
const JITTER = 0.1;
/**
 * Attempts of one message a Retry-After may put off without using the schedule (a day of hourly
 * answers); past them, the schedule goes on as if the receiver had not asked.
 */
export const MAX_DEFERRALS = 24;

/** A `random` for nextRetry that takes the schedule's delays as they stand (the middle of the jitter). */
export const EXACT = (): number => 0.5;

/** What comes after a failed attempt: a retry after `delay_s` (`step`: it used a delay of the schedule). */
export interface Retry {
  delay_s: number;
  step: boolean;
}

/**
 * The retry after a failed attempt of a message that has used `stepsUsed` delays of the schedule and
 * been put off `deferrals` times by a Retry-After; null: it has failed.
 */
export function nextRetry(
  schedule: readonly number[],
  stepsUsed: number,
  deferrals: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): Retry | null {
  if (
    retryAfterSeconds !== null &&
    retryAfterSeconds >= 0 &&
    retryAfterSeconds <= MAX_RETRY_AFTER_S &&
    deferrals < MAX_DEFERRALS
  ) {
    return { delay_s: retryAfterSeconds, step: false };
  }
  const delay = schedule[stepsUsed];
  if (delay === undefined) return null;
  return { delay_s: delay * (1 - JITTER + 2 * JITTER * random()), step: true };
}

/** A `Retry-After` header in seconds: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}
