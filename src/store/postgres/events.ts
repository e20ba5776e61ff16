import { CONFLICT_COUNT_SQL } from '../conflicts.ts';
import { page, type Row } from '../rows.ts';
import type { EventCounters, EventRecord, Page } from '../store.ts';
import { all, type Db, numbered, one } from './queries.ts';

const CONFLICT_COUNT = numbered(CONFLICT_COUNT_SQL);

/** Inserts a new event. */
export async function createEvent(db: Db, e: EventRecord): Promise<void> {
  await db.query('INSERT INTO events (eid, name, event_date, ends_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
    e.eid,
    e.name,
    e.event_date,
    e.ends_at,
    e.created_at,
  ]);
}

/** The event, or null. */
export function getEvent(db: Db, eid: string): Promise<EventRecord | null> {
  return one<EventRecord>(db, 'SELECT * FROM events WHERE eid = $1', [eid]);
}

/** Events in creation order, a page at a time (cursor: the last eid seen). */
export async function listEvents(db: Db, limit: number, after: string | null): Promise<Page<EventRecord>> {
  const rows = await all<EventRecord>(db, 'SELECT * FROM events WHERE eid > $1 ORDER BY eid LIMIT $2', [
    after ?? '',
    limit + 1,
  ]);
  return page(rows, limit, (e) => e.eid);
}

/** Counts the event's tickets: issued, checked in, revoked, in conflict; read in one snapshot. */
export async function countTickets(db: Db, eid: string): Promise<EventCounters> {
  // One statement, so one snapshot.
  const row = (await one<Row>(
    db,
    `SELECT COUNT(*) AS issued, COUNT(checked_in_at) AS checked_in, COUNT(revoked_at) AS revoked,
         (${CONFLICT_COUNT}) AS conflicts
       FROM tickets WHERE eid = $1`,
    [eid],
  ))!;
  // COUNT is BIGINT, which arrives as a string.
  return {
    issued: Number(row.issued),
    checked_in: Number(row.checked_in),
    revoked: Number(row.revoked),
    conflicts: Number(row.conflicts),
  };
}
