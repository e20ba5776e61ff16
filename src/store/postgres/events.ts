import { page, type Row, toEvent } from '../rows.ts';
import type { EventRecord, EventSettings, Page } from '../store.ts';
import { all, type Db, one } from './queries.ts';

/** Inserts a new event. */
export async function createEvent(db: Db, e: EventRecord): Promise<void> {
  await db.query(
    `INSERT INTO events (eid, name, event_date, ends_at, created_at, reentry, capacity, timezone, day_starts_at, auto_exit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      e.eid,
      e.name,
      e.event_date,
      e.ends_at,
      e.created_at,
      e.reentry,
      e.capacity,
      e.timezone,
      e.day_starts_at,
      e.auto_exit,
    ],
  );
}

/** The event, or null. */
export async function getEvent(db: Db, eid: string): Promise<EventRecord | null> {
  const row = await one<Row>(db, 'SELECT * FROM events WHERE eid = $1', [eid]);
  return row ? toEvent(row) : null;
}

/** Changes an event's settings in one statement; the event as it is now, or null. */
export async function updateEventSettings(db: Db, eid: string, settings: EventSettings): Promise<EventRecord | null> {
  const row = await one<Row>(
    db,
    `UPDATE events SET reentry = CASE WHEN $2::boolean THEN $3::boolean ELSE reentry END,
                       capacity = CASE WHEN $4::boolean THEN $5::integer ELSE capacity END,
                       timezone = COALESCE($6::text, timezone),
                       day_starts_at = COALESCE($7::text, day_starts_at),
                       auto_exit = COALESCE($8::boolean, auto_exit)
      WHERE eid = $1 RETURNING *`,
    [
      eid,
      settings.reentry !== undefined,
      settings.reentry ?? false,
      settings.capacity !== undefined,
      settings.capacity ?? null,
      settings.timezone ?? null,
      settings.day_starts_at ?? null,
      settings.auto_exit ?? null,
    ],
  );
  return row ? toEvent(row) : null;
}

/** Events in creation order, a page at a time (cursor: the last eid seen); with `only`, just those. */
export async function listEvents(
  db: Db,
  limit: number,
  after: string | null,
  only: readonly string[] | null,
): Promise<Page<EventRecord>> {
  const rows = await all<Row>(
    db,
    'SELECT * FROM events WHERE eid > $1 AND ($3::text[] IS NULL OR eid = ANY($3::text[])) ORDER BY eid LIMIT $2',
    [after ?? '', limit + 1, only],
  );
  return page(rows.map(toEvent), limit, (e) => e.eid);
}
