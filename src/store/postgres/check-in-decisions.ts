import { keyRefusal } from '../key-standing.ts';
import { type KnownAttempt, replayOrConflict } from '../replay.ts';
import type { CheckInAttempt, CheckInResult, CheckInVerdict, PresenceDecider, ScanOutcome } from '../store.ts';
import { planCheckIn, withNotInside } from '../../domain/check-in-plan.ts';
import { type BatchState, knownKey } from './check-in-reads.ts';
import type { LoggedScan, PlannedAttempt, Remembered } from './check-in-writes.ts';

/** Each check-in's result, or the error its `decide` threw (nothing of it is stored then). */
export type Answer = { ok: true; result: CheckInResult } | { ok: false; error: Error };

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Everything the batch writes, in item order, and each item's answer. */
export interface BatchPlan {
  answers: Answer[];
  remembered: Remembered[];
  scans: LoggedScan[];
  /** Each decided attempt's plan of moves (see check-in-plan.ts), in item order. */
  planned: PlannedAttempt[];
}

/**
 * The single path's rules, item after item, on the state the batch read: refused keys store nothing,
 * known keys replay (or conflict), new keys are decided on the ticket's rows as the batch's earlier
 * items left them, and their plans of moves update those rows for the items after them.
 */
export function decideAll(
  batch: readonly { attempt: CheckInAttempt; decide: PresenceDecider }[],
  state: BatchState,
): BatchPlan {
  const plan: BatchPlan = { answers: [], remembered: [], scans: [], planned: [] };
  const log = (attempt: CheckInAttempt, outcome: ScanOutcome, reason: string | null) =>
    plan.scans.push({ attempt, outcome, reason, replay: false });
  for (const { attempt, decide } of batch) {
    const refusal = keyRefusal(state.keys.get(attempt.api_key_id) ?? null, attempt.received_at);
    if (refusal) {
      plan.answers.push({ ok: true, result: refusal });
      continue;
    }
    const known = state.known.get(knownKey(attempt.eid, attempt.idempotency_key));
    if (known) {
      const again = replayOrConflict(attempt, known);
      // One line per scan, whatever the retries: a replay writes none.
      if (!again.replay) log(attempt, again.outcome, again.reason);
      plan.answers.push({ ok: true, result: again.result });
      continue;
    }
    const rows = state.holders.get(attempt.tid) ?? null;
    let verdict: CheckInVerdict;
    try {
      const gate = attempt.gate_id === null ? null : (state.gates.get(knownKey(attempt.eid, attempt.gate_id)) ?? null);
      verdict = decide(rows?.ticket ?? null, rows?.presence ?? null, gate, state.entries.get(attempt.tid) ?? []);
    } catch (error) {
      plan.answers.push({ ok: false, error: asError(error) });
      continue;
    }
    const planned = planCheckIn(rows, attempt, verdict);
    if (rows !== null && planned.rows !== null) {
      let next = planned.rows;
      if (verdict.outcome === 'not_inside') next = withNotInside(next, attempt);
      state.holders.set(attempt.tid, next);
      if (planned.plan.entry !== null)
        state.entries.set(attempt.tid, [...(state.entries.get(attempt.tid) ?? []), planned.plan.entry.at]);
    }
    plan.planned.push({ attempt, plan: planned.plan });
    const remembered: KnownAttempt = {
      fingerprint: attempt.fingerprint,
      http_status: verdict.answer.http_status,
      body: JSON.stringify(verdict.answer.body),
      outcome: verdict.outcome,
      reason: verdict.reason,
    };
    state.known.set(knownKey(attempt.eid, attempt.idempotency_key), remembered);
    plan.remembered.push({ attempt, known: remembered });
    log(attempt, verdict.outcome, verdict.reason);
    plan.answers.push({ ok: true, result: { kind: 'answered', answer: verdict.answer, replay: false } });
  }
  return plan;
}
