import type { CheckInAttempt, CheckInResult, ScanOutcome } from './store.ts';

/** What a store remembers of an answered check-in attempt, under its idempotency key. */
export interface KnownAttempt {
  fingerprint: string;
  http_status: number;
  body: string;
  outcome: ScanOutcome;
  reason: string | null;
}

/**
 * A known key again: the same body is a replay of the first answer (the scan log keeps its first
 * line only), another body a conflict (logged: another attempt). Shared by every backend so that they judge replays alike.
 */
export function replayOrConflict(
  attempt: CheckInAttempt,
  known: KnownAttempt,
): { result: CheckInResult; outcome: ScanOutcome; reason: string | null; replay: boolean } {
  if (known.fingerprint !== attempt.fingerprint) {
    return {
      result: { kind: 'conflict' },
      outcome: 'idempotency_conflict',
      reason: 'idempotency key reused with another body',
      replay: false,
    };
  }
  const answer = { http_status: known.http_status, body: JSON.parse(known.body) as unknown };
  return {
    result: { kind: 'answered', answer, replay: true },
    outcome: known.outcome,
    reason: known.reason,
    replay: true,
  };
}
