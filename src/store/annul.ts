/**
 * Annulling an entry (SQL shared by every backend, `?` placeholders), in one transaction that holds
 * the ticket: the entry no longer counts (`entries.annulled_at`), the holder goes where the remaining
 * moves put them in scan-time order (the ticket's last entry, presence), the kept counts move back (the gate's entries and
 * repeats, the minute's arrivals, the event's and its type's checked-in counts when the ticket is unused
 * again, the event day's holders when it was the ticket's last counted entry that day), the
 * scan log marks the scan, and the feed and the webhooks get an `annulled` change. Whether it may be
 * annulled is the shared rule's (`annulOutcome` in packages/protocol), on facts read here.
 */
import type { AnnulRefusal } from '@ticket-issuer/protocol';
import { KEPT_BY_KEY } from './conflicts.ts';
import type { TicketRecord } from './ticket-records.ts';

/** Which entry: a scanner's own idempotency key, or a line of the scan log (an organizer). */
export type AnnulTarget = { scanner_id: string; idempotency_key: string } | { scan_id: number };

export interface AnnulAttempt {
  eid: string;
  target: AnnulTarget;
  /** When it was undone (the device's time, or the issuer's for an organizer). */
  annulled_at: string;
  /** The issuer's time. */
  received_at: string;
}

/** What the rule judges, as the transaction read it. */
export interface AnnulSeen {
  isEntry: boolean;
  latest: boolean;
  scanned_at: string;
}

export type AnnulResult =
  | { kind: 'not_found' }
  | { kind: 'refused'; reason: AnnulRefusal }
  | { kind: 'annulled'; ticket: TicketRecord; entries: string[]; again: boolean };

/**
 * The scan a scanner's key names (params: eid, idempotency_key, eid, idempotency_key): its line that
 * is not a replay (one per key: the scans after it under the key are). A `valid` one is found through
 * the ticket its remembered answer keeps (`idempotency_keys`' key, then `scans_by_outcome`), any other
 * by index `scans_by_key`, which holds only those (KEPT_BY_KEY). No order: ordered by scan_id, SQLite
 * would read the event's whole scan log by `scans_by_event` instead.
 */
export const SCAN_BY_KEY_SQL = `SELECT scan_id, tid, scanner_id, gate_id, idempotency_key, scanned_at, outcome FROM scans
  WHERE eid = ? AND idempotency_key = ? AND replay = FALSE AND ${KEPT_BY_KEY()}
  UNION ALL
  SELECT s.scan_id, s.tid, s.scanner_id, s.gate_id, s.idempotency_key, s.scanned_at, s.outcome
    FROM idempotency_keys k JOIN scans s ON s.eid = k.eid AND s.outcome = 'valid' AND s.tid = k.tid
      AND s.idempotency_key = k.idempotency_key AND s.replay = FALSE
   WHERE k.eid = ? AND k.idempotency_key = ?
  LIMIT 1`;

/** A line of the event's scan log (params: eid, scan_id). */
export const SCAN_BY_ID_SQL = `SELECT scan_id, tid, scanner_id, gate_id, idempotency_key, scanned_at, outcome FROM scans
  WHERE eid = ? AND scan_id = ?`;

/** The ticket's counted entry under a key (params: tid, idempotency_key), by index `entries_by_ticket`. */
export const ENTRY_BY_KEY_SQL = `SELECT tid, scanner_id, scanned_at, gate_key, was_inside, annulled_at, day FROM entries
  WHERE tid = ? AND idempotency_key = ?`;

/** The ticket's latest counted entry by scan time (param: tid). */
export const LATEST_ENTRY_SQL = `SELECT idempotency_key, scanned_at FROM entries WHERE tid = ? AND annulled_at IS NULL
  ORDER BY scanned_at DESC, idempotency_key DESC LIMIT 1`;

/** Marks the ticket's entry annulled (params: annulled_at, tid, idempotency_key), by index `entries_by_ticket`. */
export const ANNUL_ENTRY_SQL = 'UPDATE entries SET annulled_at = ? WHERE tid = ? AND idempotency_key = ?';

/** Marks the scan log's lines of the entry (params: annulled_at, eid, tid, idempotency_key), by index `scans_by_outcome`. */
export const ANNUL_SCANS_SQL = `UPDATE scans SET annulled_at = ?
  WHERE eid = ? AND outcome = 'valid' AND tid = ? AND idempotency_key = ?`;

/** The ticket's last entry as it is after the annul (params: checked_in_at or null, tid). */
export const BACK_TO_LAST_ENTRY_SQL = 'UPDATE tickets SET checked_in_at = ? WHERE tid = ?';

/**
 * Where the remaining moves put the holder, in scan-time order (params: the latest remaining entry's
 * scanned_at, tid): inside when that entry came after their last exit (or they never went out), out
 * otherwise. Answers `inside`. Only with a remaining entry; with none, the presence row goes.
 */
export const BACK_WHERE_MOVES_LEAVE_SQL = `UPDATE presence SET inside = (checked_out_at IS NULL OR checked_out_at < ?)
  WHERE tid = ? RETURNING inside`;

/**
 * One entry fewer at its gate, and as many repeats fewer as keep occupancy equal to the holders inside
 * (params: 1 when the holder is still inside after the annul, else 0 (they were inside before it: only
 * the latest move is annulled); eid; gate_key). Occupancy counts entries less exits less repeats.
 */
export const GATE_ENTRY_BACK_SQL = `UPDATE gate_counts SET entries = entries - 1, repeats = repeats - ?
  WHERE eid = ? AND gate_key = ?`;

/** One arrival fewer in the entry's minute and gate (params: eid, minute, gate_key). */
export const ARRIVAL_BACK_SQL = `UPDATE arrival_counts SET entries = entries - 1
  WHERE eid = ? AND minute = ? AND gate_key = ?`;
