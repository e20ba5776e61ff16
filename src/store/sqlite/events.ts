import type { EventCounters, EventRecord, Page } from '../store.ts';
import { CONFLICT_COUNT_SQL } from '../conflicts.ts';
import { page } from '../rows.ts';
import type { SqliteContext } from './context.ts';

export function createEvent(c: SqliteContext, e: EventRecord): Promise<void> {
  return c.tx(() => {
    c.run(
      'INSERT INTO events (eid, name, event_date, ends_at, created_at) VALUES (?, ?, ?, ?, ?)',
      e.eid,
      e.name,
      e.event_date,
      e.ends_at,
      e.created_at,
    );
  });
}

export async function getEvent(c: SqliteContext, eid: string): Promise<EventRecord | null> {
  return c.one<EventRecord>('SELECT * FROM events WHERE eid = ?', eid);
}

export async function listEvents(c: SqliteContext, limit: number, after: string | null): Promise<Page<EventRecord>> {
  const rows = c.all<EventRecord>('SELECT * FROM events WHERE eid > ? ORDER BY eid LIMIT ?', after ?? '', limit + 1);
  return page(rows, limit, (e) => e.eid);
}

export function countTickets(c: SqliteContext, eid: string): Promise<EventCounters> {
  // A read transaction: the counts and the conflicts come from one snapshot.
  return Promise.resolve(
    c.db.transaction(() => ({
      ...c.one<Omit<EventCounters, 'conflicts'>>(
        `SELECT COUNT(*) AS issued, COUNT(checked_in_at) AS checked_in, COUNT(revoked_at) AS revoked
           FROM tickets WHERE eid = ?`,
        eid,
      )!,
      conflicts: c.one<{ conflicts: number }>(CONFLICT_COUNT_SQL, eid)!.conflicts,
    }))(),
  );
}
