import type { EventRecord, EventSettings, Page } from '../store.ts';
import { page, type Row, toEvent } from '../rows.ts';
import type { SqliteContext } from './context.ts';

export function createEvent(c: SqliteContext, e: EventRecord): Promise<void> {
  return c.tx(() => {
    c.run(
      `INSERT INTO events (eid, name, event_date, ends_at, created_at, reentry, capacity, timezone, day_starts_at, auto_exit)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      e.eid,
      e.name,
      e.event_date,
      e.ends_at,
      e.created_at,
      e.reentry ? 1 : 0,
      e.capacity,
      e.timezone,
      e.day_starts_at,
      e.auto_exit ? 1 : 0,
    );
  });
}

export async function getEvent(c: SqliteContext, eid: string): Promise<EventRecord | null> {
  const row = c.one<Row>('SELECT * FROM events WHERE eid = ?', eid);
  return row ? toEvent(row) : null;
}

export function updateEventSettings(
  c: SqliteContext,
  eid: string,
  settings: EventSettings,
): Promise<EventRecord | null> {
  return c.tx(() => {
    if (settings.reentry !== undefined)
      c.run('UPDATE events SET reentry = ? WHERE eid = ?', settings.reentry ? 1 : 0, eid);
    if (settings.capacity !== undefined) c.run('UPDATE events SET capacity = ? WHERE eid = ?', settings.capacity, eid);
    if (settings.timezone !== undefined) c.run('UPDATE events SET timezone = ? WHERE eid = ?', settings.timezone, eid);
    if (settings.day_starts_at !== undefined)
      c.run('UPDATE events SET day_starts_at = ? WHERE eid = ?', settings.day_starts_at, eid);
    if (settings.auto_exit !== undefined)
      c.run('UPDATE events SET auto_exit = ? WHERE eid = ?', settings.auto_exit ? 1 : 0, eid);
    const row = c.one<Row>('SELECT * FROM events WHERE eid = ?', eid);
    return row ? toEvent(row) : null;
  });
}

export async function listEvents(
  c: SqliteContext,
  limit: number,
  after: string | null,
  only: readonly string[] | null,
): Promise<Page<EventRecord>> {
  const rows =
    only === null
      ? c.all<Row>('SELECT * FROM events WHERE eid > ? ORDER BY eid LIMIT ?', after ?? '', limit + 1)
      : c.all<Row>(
          'SELECT * FROM events WHERE eid > ? AND eid IN (SELECT value FROM json_each(?)) ORDER BY eid LIMIT ?',
          after ?? '',
          JSON.stringify(only),
          limit + 1,
        );
  return page(rows.map(toEvent), limit, (e) => e.eid);
}
