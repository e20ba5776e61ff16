/**
 * One attempt, as the worker sends and records it: the message's body (the same on every attempt),
 * and what its end makes of the message and of the endpoint.
 */
import { toWire } from '../domain/time.ts';
import type { AttemptResult, ClaimedMessage } from '../store/webhook-records.ts';
import type { AttemptOutcome } from './deliver.ts';
import { nextRetry } from '../outbox/schedule.ts';

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

/** When an attempt started and ended (by the worker's clock). */
export interface AttemptTimes {
  started: Date;
  ended: Date;
}

/**
 * The end of an attempt: delivered on a 2xx; else due again after the schedule's next delay (or the
 * receiver's Retry-After, which uses none), counted from the attempt's end, or failed past the last
 * delay; 410 fails it and disables the endpoint.
 */
export function attemptResult(
  message: ClaimedMessage,
  times: AttemptTimes,
  outcome: AttemptOutcome,
  delivered: boolean,
  schedule: readonly number[],
): AttemptResult {
  const gone = outcome.status_code === 410;
  let next: AttemptResult['next'] = { state: 'delivered' };
  if (!delivered) {
    const deferrals = message.attempt_count - message.schedule_step;
    const retry = gone ? null : nextRetry(schedule, message.schedule_step, deferrals, outcome.retry_after_s);
    next = retry === null ? { state: 'failed' } : { state: 'pending', ...retry };
  }
  return {
    message_id: message.message_id,
    webhook_id: message.webhook_id,
    lease_token: message.lease_token,
    attempt: {
      at: times.started.toISOString(),
      status_code: outcome.status_code,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
    },
    ended_at: times.ended.toISOString(),
    next,
    disable: gone ? 'gone' : null,
    failing_before: new Date(times.started.getTime() - DISABLE_AFTER_MS).toISOString(),
  };
}
