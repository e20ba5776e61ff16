/**
 * The event report's exits and re-entries per minute, kept rather than counted (migration 36; SQL
 * shared by every backend, `?` placeholders), beside the entries per minute (`arrival_counts`), so that
 * the report reads one row per minute that had moves whatever the size of the event. A row of
 * `minute_counts` (key: event, minute of the move's time in the stored form `YYYY-MM-DDThh:mm`) holds:
 * - `exits`: the feed's `checked_out` changes at that minute of their `at`: exit scans, the exits an
 *   entry turns into one (late exits, uploads) and automatic exits (each day's run, and the one an entry
 *   uploaded late makes). Nothing takes an exit back (an annul undoes entries only);
 * - `repeats`: the counted entries scanned at that minute while the holder was counted inside already
 *   (`entries.was_inside`, not annulled): moved by such an entry, and back by its annul.
 * They move in the transaction of the change they count, after the event's feed counter (the lock
 * order of every writer on PostgreSQL); on SQLite they are added up per group commit (GroupCounts).
 */
import { addCountsSql, MINUTE_COUNTS } from './kept-counts.ts';
import type { Row } from './rows.ts';

/** Adds to a minute's exits and repeats (params: eid, minute, exits, repeats). */
export const BUMP_MINUTE_COUNTS_SQL = addCountsSql(MINUTE_COUNTS);

/** The event's kept exits and repeats per minute (param: eid), the minutes with either. */
export const MINUTE_COUNTS_SQL = `SELECT minute, exits, repeats FROM minute_counts
  WHERE eid = ? AND (exits <> 0 OR repeats <> 0)`;

/** The exits per minute counted from the feed, as migration 36 fills them (both stores' SQL). */
export const FILL_MINUTE_EXITS_SQL = `INSERT INTO minute_counts (eid, minute, exits, repeats)
  SELECT eid, substr(at, 1, 16), COUNT(*), 0 FROM changes WHERE type = 'checked_out'
   GROUP BY eid, substr(at, 1, 16);`;

/** The re-entries per minute counted from the entries, after the exits (both stores' SQL). */
export const FILL_MINUTE_REPEATS_SQL = `INSERT INTO minute_counts (eid, minute, exits, repeats)
  SELECT eid, substr(scanned_at, 1, 16), 0, COUNT(*) FROM entries WHERE annulled_at IS NULL AND was_inside = TRUE
   GROUP BY eid, substr(scanned_at, 1, 16)
  ON CONFLICT (eid, minute) DO UPDATE SET repeats = excluded.repeats;`;

/**
 * Migration 36's table and its filling from the rows before it (both stores; `counter` is the count
 * columns' type). The indexes that served the grouped reads (migration 31) go after the filling, which
 * reads them: one index fewer for every exit and every re-entry to write.
 */
export const minuteCountsMigrationSql = (text: string, counter: string): string => `
  CREATE TABLE minute_counts (
    eid ${text} NOT NULL, minute ${text} NOT NULL,
    exits ${counter} NOT NULL DEFAULT 0, repeats ${counter} NOT NULL DEFAULT 0,
    PRIMARY KEY (eid, minute)
  );
  ${FILL_MINUTE_EXITS_SQL}
  ${FILL_MINUTE_REPEATS_SQL}
  DROP INDEX entries_repeats_by_time;
  DROP INDEX changes_exits_by_time;
`;

/** Kept minute rows as numbers (PostgreSQL answers BIGINT as strings). */
export const toMinuteCounts = (rows: Row[]): { minute: string; exits: number; repeats: number }[] =>
  rows.map((row) => ({ minute: row.minute as string, exits: Number(row.exits), repeats: Number(row.repeats) }));
