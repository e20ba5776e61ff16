import type pg from 'pg';
import { minuteCountsMigrationSql } from '../minute-counts.ts';
import { EntryDays, FILL_DAY_HOLDERS_SQL, FILL_TYPE_COUNTS_SQL } from '../report-count-fill.ts';
import { all } from './queries.ts';

/** Gives every entry its event day, in the zone of its event, 5,000 entries a statement. */
async function fillEntryDays(client: pg.PoolClient): Promise<void> {
  const days = new EntryDays(
    await all<{ eid: string; timezone: string; day_starts_at: string }>(
      client,
      'SELECT eid, timezone, day_starts_at FROM events',
    ),
  );
  let after = { eid: '', idempotency_key: '' };
  for (;;) {
    const rows = await all<{ eid: string; idempotency_key: string; scanned_at: string }>(
      client,
      `SELECT eid, idempotency_key, scanned_at FROM entries WHERE (eid, idempotency_key) > ($1, $2)
        ORDER BY eid, idempotency_key LIMIT 5000`,
      [after.eid, after.idempotency_key],
    );
    if (rows.length === 0) return;
    await client.query(
      `UPDATE entries SET day = u.day FROM unnest($1::text[], $2::text[], $3::text[]) AS u (eid, idempotency_key, day)
        WHERE entries.eid = u.eid AND entries.idempotency_key = u.idempotency_key`,
      [rows.map((r) => r.eid), rows.map((r) => r.idempotency_key), rows.map((r) => days.dayOf(r.eid, r.scanned_at))],
    );
    after = rows[rows.length - 1]!;
  }
}

/** Migrations 35 and 36 of the PostgreSQL store, as SQLite's (see ../sqlite/report-count-migrations.ts). */
export const REPORT_COUNT_POSTGRES_MIGRATIONS: readonly {
  version: number;
  sql: string;
  fill?: (client: pg.PoolClient) => Promise<void>;
  after?: string;
}[] = [
  {
    version: 35,
    sql: `
      ALTER TABLE entries ADD COLUMN day TEXT;
      DROP INDEX entries_counted_by_time;
      CREATE TABLE type_counts (
        eid TEXT COLLATE "C" NOT NULL, ticket_type TEXT COLLATE "C" NOT NULL,
        issued BIGINT NOT NULL DEFAULT 0, checked_in BIGINT NOT NULL DEFAULT 0,
        revoked BIGINT NOT NULL DEFAULT 0, checked_in_revoked BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (eid, ticket_type)
      );
      CREATE TABLE day_holders (
        eid TEXT COLLATE "C" NOT NULL, day TEXT COLLATE "C" NOT NULL, holders BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (eid, day)
      );
      ${FILL_TYPE_COUNTS_SQL}
    `,
    fill: fillEntryDays,
    after: FILL_DAY_HOLDERS_SQL,
  },
  { version: 36, sql: minuteCountsMigrationSql('TEXT COLLATE "C"', 'BIGINT') },
];
