/**
 * Migration 31 of both stores: the indexes the event report reads (see report-queries.ts). Each covers
 * one grouped read, so the report reads index entries in order and never the tables' rows:
 * - counted entries by time, with the ticket: the distinct holders of each event day (dropped by
 *   migration 35, which keeps those holders instead: see report-counts.ts);
 * - entries made while the holder was counted inside (re-entries that leave occupancy as it was), by
 *   time: the hours' occupancy (a partial index, empty at most events);
 * - exits by time (the feed's `checked_out` changes, automatic exits included): the hours' exits.
 * Migration 36 keeps those two per minute instead (`minute_counts`, see minute-counts.ts) and drops
 * their indexes.
 * The same SQL on SQLite and PostgreSQL (`TRUE` is 1 on SQLite).
 */
export const REPORT_MIGRATION = {
  version: 31,
  sql: `
    CREATE INDEX entries_counted_by_time ON entries (eid, scanned_at, tid) WHERE annulled_at IS NULL;
    CREATE INDEX entries_repeats_by_time ON entries (eid, scanned_at) WHERE annulled_at IS NULL AND was_inside = TRUE;
    CREATE INDEX changes_exits_by_time ON changes (eid, at) WHERE type = 'checked_out';
  `,
} as const;
