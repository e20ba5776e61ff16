/**
 * One attempt, as the worker sends and records it: the message's body (the same on every attempt),
 * and what its end makes of the message and of the endpoint.
 */
import { toWire } from '../domain/time.ts';
import type { AttemptResult, ClaimedMessage } from '../store/webhook-records.ts';
import type { AttemptOutcome } from './deliver.ts';
import { retryDelaySeconds } from './schedule.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** An endpoint that failed every attempt for this long is disabled. */
const DISABLE_AFTER_MS = 5 * DAY_MS;

/** The message's body as every attempt sends it: type, the change's timestamp, and data with its position. */
export function messageBody(message: Pick<ClaimedMessage, 'type' | 'data' | 'position' | 'occurred_at'>): string {
  const data = JSON.parse(message.data) as Record<string, unknown>;
  const timestamp = toWire(message.occurred_at);
  return JSON.stringify({
    type: message.type,
    timestamp,
    data: message.position === null ? data : { ...data, position: message.position },
  });
}

/**
 * The end of an attempt: delivered on a 2xx; else due again after the schedule's delay (or the
 * receiver's Retry-After), or failed past the last delay; 410 fails it and disables the endpoint.
 */
export function attemptResult(
  message: ClaimedMessage,
  owner: string,
  at: Date,
  outcome: AttemptOutcome,
  delivered: boolean,
  schedule: readonly number[],
): AttemptResult {
  const gone = outcome.status_code === 410;
  let next: AttemptResult['next'] = { state: 'delivered' };
  if (!delivered) {
    const delay = gone ? null : retryDelaySeconds(schedule, message.attempt_count + 1, outcome.retry_after_s);
    next =
      delay === null
        ? { state: 'failed' }
        : { state: 'pending', next_attempt_at: new Date(at.getTime() + delay * 1000).toISOString() };
  }
  return {
    message_id: message.message_id,
    webhook_id: message.webhook_id,
    lease_owner: owner,
    attempt: {
      at: at.toISOString(),
      status_code: outcome.status_code,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
    },
    next,
    disable: gone ? 'gone' : null,
    failing_before: new Date(at.getTime() - DISABLE_AFTER_MS).toISOString(),
  };
}
