import { type Row, toScan } from './rows.ts';
import type { RecentScanPage } from './store.ts';

/**
 * A page of the scan log newest first, from `limit + 1` rows of `scanLogSql` read backwards in the
 * log's commit order: `next_cursor` reads the older scans (null at the log's start), `newer_cursor`
 * follows the log forwards (`listScans`) from the newest scan shown (from the log's start when the log
 * was empty, from just below `before` when nothing was below it).
 */
export function recentScanPage(rows: Row[], limit: number, before: number | null): RecentScanPage {
  const shown = rows.slice(0, limit);
  const newest = shown[0];
  const oldest = shown[shown.length - 1];
  return {
    items: shown.map(toScan),
    next_cursor: rows.length > limit && oldest ? String(oldest.log_cursor) : null,
    newer_cursor: newest ? String(newest.log_cursor) : String(before === null ? 0 : before - 1),
  };
}
