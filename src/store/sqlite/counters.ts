import type { ArrivalCount, EventCounters } from '../store.ts';
import {
  ARRIVALS_SQL,
  type CountsMoved,
  EVENT_COUNTERS_SQL,
  minuteOf,
  recordConflictsSql,
  toArrivals,
  toCounters,
} from '../counters.ts';
import type { TypeCountsMoved } from '../report-counts.ts';
import type { Row } from '../rows.ts';
import { ARRIVAL_COUNTS, DAY_HOLDERS, EVENT_COUNTS, MINUTE_COUNTS, TYPE_COUNTS } from '../kept-counts.ts';
import type { SqliteContext } from './context.ts';

const RECORD_CONFLICTS = recordConflictsSql('IN (SELECT value FROM json_each(?))');

/** The event's counters: one row, whatever the size of the event. */
export async function countTickets(c: SqliteContext, eid: string): Promise<EventCounters> {
  return toCounters(c.one<Row>(EVENT_COUNTERS_SQL, eid));
}

/** Moves the event's counters; inside the caller's transaction (added up per group: see GroupCounts). */
export function bumpCounters(c: SqliteContext, eid: string, moved: CountsMoved): void {
  c.counts.add(EVENT_COUNTS, [eid], moved);
}

/** Moves ticket types' kept counts (report-counts.ts); inside the caller's transaction (added up per group). */
export function bumpTypeCounts(c: SqliteContext, moved: readonly TypeCountsMoved[]): void {
  for (const { eid, ticket_type, ...counts } of moved) c.counts.add(TYPE_COUNTS, [eid, ticket_type], counts);
}

/** One holder more on an event day (their first counted entry of it); inside the caller's transaction (added up per group). */
export function countDayHolder(c: SqliteContext, eid: string, day: string): void {
  c.counts.add(DAY_HOLDERS, [eid, day], { holders: 1 });
}

/**
 * Records the tickets that the scans just logged under these keys put in conflict, and counts those
 * that were in none before; inside the caller's transaction.
 */
export function recordConflicts(c: SqliteContext, eid: string, keys: string[]): void {
  if (keys.length === 0) return;
  const added = c.run(RECORD_CONFLICTS, eid, JSON.stringify(keys));
  if (added > 0) bumpCounters(c, eid, { conflicts: added });
}

/** Counts an entry in its minute and gate; inside the caller's transaction (see bumpCounters). */
export function countArrival(c: SqliteContext, eid: string, at: string, gateId: string | null): void {
  c.counts.add(ARRIVAL_COUNTS, [eid, minuteOf(at), gateId ?? ''], { entries: 1 });
}

/** Counts exits in the minute of `at` (minute-counts.ts); inside the caller's transaction (see bumpCounters). */
export function countExits(c: SqliteContext, eid: string, at: string, exits: number): void {
  c.counts.add(MINUTE_COUNTS, [eid, minuteOf(at)], { exits });
}

/** Moves the re-entries of the minute of `at` (1: one made, -1: one annulled); inside the caller's transaction. */
export function countRepeat(c: SqliteContext, eid: string, at: string, repeats: number): void {
  c.counts.add(MINUTE_COUNTS, [eid, minuteOf(at)], { repeats });
}

/** The event's entries per minute and gate. */
export async function arrivals(c: SqliteContext, eid: string): Promise<ArrivalCount[]> {
  return toArrivals(c.all<Row>(ARRIVALS_SQL, eid));
}
