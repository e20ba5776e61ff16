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
 * A ticket's exit scans answered `not_inside` (params: eid, tid), in scan order, read among the
 * ticket's scans by index (`scans_by_outcome`): almost always none. An exit scanned before the holder's
 * previous exit belongs to an earlier stay, and is left alone (`presence.checked_out_at`, which an entry
 * keeps): see check-in-plan.ts.
 */
export const NOT_INSIDE_SQL = `SELECT scanner_id, gate_id, scanned_at FROM scans
  WHERE eid = ? AND outcome = 'not_inside' AND tid = ? AND replay = FALSE ORDER BY scanned_at, scan_id`;

/** The `ticket.checked_out` message of a late exit: its own scanner and gate, sent with the entry. */
export function lateExitMessage(entry: CheckInAttempt, exit: LateExit) {
  return checkedOutMessage({ ...entry, scanner_id: exit.scanner_id, gate_id: exit.gate_id }, exit.scanned_at);
}
