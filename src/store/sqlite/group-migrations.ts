import type Database from 'better-sqlite3';
import { codesForEvents } from '../group-codes.ts';

/** Gives every ticket without a short code a random one, unique within its event. */
function fillShortCodes(db: Database.Database): void {
  const rows = db.prepare('SELECT eid, tid FROM tickets WHERE short_code IS NULL ORDER BY eid, tid').all() as {
    eid: string;
    tid: string;
  }[];
  const codes = codesForEvents(rows, new Map());
  const update = db.prepare('UPDATE tickets SET short_code = ? WHERE tid = ?');
  rows.forEach((row, i) => update.run(codes[i], row.tid));
}

/**
 * Migration 34 of the SQLite store: groups, short codes, the offline roster and scanner clocks.
 * - `order_ref`: the order or booking a ticket belongs to (its group); `short_code`: 10 Crockford
 *   base32 characters, random, unique per event (existing tickets get one here).
 * - `roster_version`: where a ticket stands in the roster devices sync. Each event has a counter; a
 *   new ticket takes its import's next value, and a trigger gives a ticket the next value whenever what
 *   the roster shows of it changes (name, type, order, notes, revocation), whichever code path made the
 *   change. SQLite has one writer at a time, so versions commit in order.
 * - `clock_offset_s` of a scanner's key: its clock minus the issuer's at its last upload, in seconds.
 */
export const GROUP_SQLITE_MIGRATIONS: readonly {
  version: number;
  sql: string;
  fill?: (db: Database.Database) => void;
  after?: string;
}[] = [
  {
    version: 34,
    sql: `
      ALTER TABLE tickets ADD COLUMN order_ref TEXT;
      ALTER TABLE tickets ADD COLUMN short_code TEXT;
      ALTER TABLE tickets ADD COLUMN roster_version INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_keys ADD COLUMN clock_offset_s INTEGER;
      CREATE TABLE roster_counters (eid TEXT PRIMARY KEY, last_version INTEGER NOT NULL);
      INSERT INTO roster_counters (eid, last_version) SELECT eid, 0 FROM events;
      CREATE INDEX tickets_by_order ON tickets (eid, order_ref, tid) WHERE order_ref IS NOT NULL;
      CREATE INDEX tickets_by_roster ON tickets (eid, roster_version, tid);
      CREATE TRIGGER tickets_roster_changed
        AFTER UPDATE OF holder_name, ticket_type, order_ref, attention, checkin_text, revoked_at ON tickets
        WHEN OLD.holder_name IS NOT NEW.holder_name OR OLD.ticket_type IS NOT NEW.ticket_type
          OR OLD.order_ref IS NOT NEW.order_ref OR OLD.attention IS NOT NEW.attention
          OR OLD.checkin_text IS NOT NEW.checkin_text OR OLD.revoked_at IS NOT NEW.revoked_at
      BEGIN
        INSERT OR IGNORE INTO roster_counters (eid, last_version) VALUES (NEW.eid, 0);
        UPDATE roster_counters SET last_version = last_version + 1 WHERE eid = NEW.eid;
        UPDATE tickets SET roster_version = (SELECT last_version FROM roster_counters WHERE eid = NEW.eid)
          WHERE tid = NEW.tid;
      END;
    `,
    fill: fillShortCodes,
    after: 'CREATE UNIQUE INDEX tickets_by_short_code ON tickets (eid, short_code);',
  },
];
