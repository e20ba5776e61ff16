import type { ArrivalCount, EventCounters } from '../store.ts';
import {
  ARRIVALS_SQL,
  BUMP_COUNTERS_SQL,
  bumpValues,
  type CountsMoved,
  EVENT_COUNTERS_SQL,
  recordConflictsSql,
  toArrivals,
  toCounters,
} from '../counters.ts';
import { BUMP_TYPE_COUNTS_SQL, typeCountValues, type TypeCountsMoved } from '../report-counts.ts';
import type { Row } from '../rows.ts';
import { all, type Db, numbered, one } from './queries.ts';

const EVENT_COUNTERS = numbered(EVENT_COUNTERS_SQL);
const BUMP_COUNTERS = numbered(BUMP_COUNTERS_SQL);
const ARRIVALS = numbered(ARRIVALS_SQL);
const BUMP_TYPE_COUNTS = numbered(BUMP_TYPE_COUNTS_SQL);

/**
 * The tickets that scans just put in conflict (params: eid, keys) and, in the same statement, the
 * event's counters moved by the first entries (param 3) and the tickets in conflict for the first time.
 * The counter row is only written (and locked) when one of them moved.
 */
const KEEP_COUNTS = `
  WITH added AS (${numbered(recordConflictsSql('= ANY(?::text[])'))} RETURNING tid)
  INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
  SELECT $1, 0, $3::int, 0, (SELECT count(*) FROM added)
   WHERE $3::int > 0 OR EXISTS (SELECT 1 FROM added)
  ON CONFLICT (eid) DO UPDATE SET checked_in = event_counters.checked_in + EXCLUDED.checked_in,
    conflicts = event_counters.conflicts + EXCLUDED.conflicts`;

/** The event's counters: one row, whatever the size of the event. */
export async function countTickets(db: Db, eid: string): Promise<EventCounters> {
  return toCounters(await one<Row>(db, EVENT_COUNTERS, [eid]));
}

/** Moves the event's counters; inside the caller's transaction, after the event's feed counter. */
export async function bumpCounters(db: Db, eid: string, moved: CountsMoved): Promise<void> {
  await db.query(BUMP_COUNTERS, bumpValues(eid, moved));
}

/** Moves ticket types' kept counts (report-counts.ts); inside the caller's transaction, after the event's counters. */
export async function bumpTypeCounts(db: Db, moved: readonly TypeCountsMoved[]): Promise<void> {
  for (const m of moved) await db.query(BUMP_TYPE_COUNTS, typeCountValues(m));
}

/**
 * The counts a check-in moves, last in its transaction (after the feed counter, the lock order of every
 * writer): a first entry, and the tickets the scans logged under these keys put in conflict (each
 * counted once). One statement, and none when there is nothing to count.
 */
export async function keepCheckInCounts(db: Db, eid: string, firstEntries: number, keys: string[]): Promise<void> {
  if (firstEntries === 0 && keys.length === 0) return;
  await db.query(KEEP_COUNTS, [eid, keys, firstEntries]);
}

/** The event's entries per minute and gate. */
export async function arrivals(db: Db, eid: string): Promise<ArrivalCount[]> {
  return toArrivals(await all<Row>(db, ARRIVALS, [eid]));
}
