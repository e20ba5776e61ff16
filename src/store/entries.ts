import type { CheckInAttempt } from './store.ts';

/**
 * A ticket's counted entries (SQL shared by every backend, `?` placeholders): the entries the limits
 * count (`max_entries`, `max_entries_per_day`) and "the last entry" (`min_minutes_between_entries`)
 * is measured from. One row per counted entry, written in the entry's transaction: a `valid` entry,
 * or an entry a scanner admitted offline that the rules refuse now (the holder did go in). Read by its
 * ticket (`entries_by_ticket`), and by its ticket and the scan's idempotency key to mark one annulled:
 * there is no index by key (see entries-key-migration.ts). An annulled entry keeps its row with
 * `annulled_at` and no longer counts.
 */

/** The `scanned_at` of a ticket's counted entries (param: tid), by index `entries_by_ticket`. */
export const ENTRIES_SQL = 'SELECT scanned_at FROM entries WHERE tid = ? AND annulled_at IS NULL';

/** Records a counted entry (params: `entryValues`). */
export const INSERT_ENTRY_SQL = `INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at, gate_key, was_inside, day)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The entry's gate ('' for none), whether the holder was counted inside already (see REPEAT_SQL), and
 * its event day in the event's zone (the report's holders of the day, report-counts.ts).
 */
export const entryValues = (
  attempt: CheckInAttempt,
  entry: { at: string; wasInside: boolean; day: string | null },
): unknown[] => [
  attempt.eid,
  attempt.idempotency_key,
  attempt.tid,
  attempt.scanner_id,
  entry.at,
  attempt.gate_id ?? '',
  entry.wasInside,
  entry.day,
];

/**
 * An entry made while the holder was counted inside (re-entry `any`, or a refused entry a scanner
 * admitted offline): it adds to its gate's entries, as every entry does, but not to occupancy, which
 * counts entries less exits less these (params: eid, gate_key). After the entry's change, which
 * wrote the gate's row.
 */
export const REPEAT_SQL = 'UPDATE gate_counts SET repeats = repeats + 1 WHERE eid = ? AND gate_key = ?';

/**
 * The holder's presence as a plan leaves it (params: tid, eid, inside, checked_out_at); SQL shared by
 * every backend (`?` placeholders).
 */
export const UPSERT_PRESENCE_SQL = `INSERT INTO presence (tid, eid, inside, checked_out_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (tid) DO UPDATE SET inside = excluded.inside, checked_out_at = excluded.checked_out_at`;
