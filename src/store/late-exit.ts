/**
 * Presence follows scan time. An exit scan answered `not_inside` because the issuer did not know yet
 * of an earlier entry (made offline, uploaded later) took the holder out all the same: once that entry
 * arrives and puts the holder inside, the first such exit scanned after it is applied, in the entry's
 * transaction. Its scan-log line keeps the answer it was given; the feed, the webhooks and
 * occupancy count the exit at its own scan time, gate and scanner.
 */
import type { CheckInAttempt } from './store.ts';
import { checkedOutMessage } from './outbox-data.ts';

/** An exit scan that the holder's entry, arriving after it, turns into an exit. */
export interface LateExit {
  scanner_id: string;
  gate_id: string | null;
  scanned_at: string;
}

/**
 * The first `not_inside` exit of the ticket scanned after the entry (params: eid, tid, the
 * entry's scanned_at), read among the ticket's scans by index. An exit scanned before the holder's
 * previous exit belongs to an earlier stay, and is left alone (`presence.checked_out_at`, which an
 * entry keeps).
 */
export const LATE_EXIT_SQL = `
  SELECT s.scanner_id, s.gate_id, s.scanned_at FROM scans s JOIN presence p ON p.tid = s.tid
  WHERE s.eid = ? AND s.outcome = 'not_inside' AND s.tid = ? AND s.replay = FALSE AND s.scanned_at > ?
    AND (p.checked_out_at IS NULL OR s.scanned_at > p.checked_out_at)
  ORDER BY s.scanned_at, s.scan_id LIMIT 1`;

/** The first of a ticket's `not_inside` exits (read in scan order) scanned after `enteredAt`. */
export function firstLateExit(exits: readonly LateExit[], enteredAt: string): LateExit | null {
  return exits.find((exit) => exit.scanned_at > enteredAt) ?? null;
}

/** The `ticket.checked_out` message of a late exit: its own scanner and gate, sent with the entry. */
export function lateExitMessage(entry: CheckInAttempt, exit: LateExit) {
  return checkedOutMessage({ ...entry, scanner_id: exit.scanner_id, gate_id: exit.gate_id }, exit.scanned_at);
}
