import type Database from 'better-sqlite3';
import { minuteCountsMigrationSql } from '../minute-counts.ts';
import { EntryDays, FILL_DAY_HOLDERS_SQL, FILL_TYPE_COUNTS_SQL } from '../report-count-fill.ts';

/** Gives every entry its event day, in the zone of its event. */
function fillEntryDays(db: Database.Database): void {
  const days = new EntryDays(
    db.prepare('SELECT eid, timezone, day_starts_at FROM events').all() as {
      eid: string;
      timezone: string;
      day_starts_at: string;
    }[],
  );
  const rows = db.prepare('SELECT eid, idempotency_key, scanned_at FROM entries').all() as {
    eid: string;
    idempotency_key: string;
    scanned_at: string;
  }[];
  const update = db.prepare('UPDATE entries SET day = ? WHERE eid = ? AND idempotency_key = ?');
  for (const row of rows) update.run(days.dayOf(row.eid, row.scanned_at), row.eid, row.idempotency_key);
}

/**
 * Migration 35 of the SQLite store: the event report's counts kept (see ../report-counts.ts): each
 * entry's event day, the tickets per event and type, the holders per event day; filled here from the
 * rows before it. Migration 31's index of counted entries by time served only the day's distinct
 * holders, which are kept now: it goes, one index fewer for every entry to write. Migration 36: the
 * exits and re-entries per minute kept (see ../minute-counts.ts), filled from the feed and the entries.
 */
export const REPORT_COUNT_SQLITE_MIGRATIONS: readonly {
  version: number;
  sql: string;
  fill?: (db: Database.Database) => void;
  after?: string;
}[] = [
  {
    version: 35,
    sql: `
      ALTER TABLE entries ADD COLUMN day TEXT;
      DROP INDEX entries_counted_by_time;
      CREATE TABLE type_counts (
        eid TEXT NOT NULL, ticket_type TEXT NOT NULL,
        issued INTEGER NOT NULL DEFAULT 0, checked_in INTEGER NOT NULL DEFAULT 0,
        revoked INTEGER NOT NULL DEFAULT 0, checked_in_revoked INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (eid, ticket_type)
      );
      CREATE TABLE day_holders (
        eid TEXT NOT NULL, day TEXT NOT NULL, holders INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (eid, day)
      );
      ${FILL_TYPE_COUNTS_SQL}
    `,
    fill: fillEntryDays,
    after: FILL_DAY_HOLDERS_SQL,
  },
  { version: 36, sql: minuteCountsMigrationSql('TEXT', 'INTEGER') },
];
