import { recentScanPage } from '../recent-scans.ts';
import { type Row, scanLogSql } from '../rows.ts';
import type { RecentScanPage } from '../store.ts';
import type { SqliteContext } from './context.ts';

/** The event's latest scans, newest first, before a cursor (scan_id: one connection writes, in order). */
export async function listRecentScans(
  c: SqliteContext,
  eid: string,
  limit: number,
  before: number | null,
): Promise<RecentScanPage> {
  const rows = c.all<Row>(
    `${scanLogSql('s.scan_id')} WHERE s.eid = ? AND s.scan_id < ? ORDER BY s.scan_id DESC LIMIT ?`,
    eid,
    before ?? Number.MAX_SAFE_INTEGER,
    limit + 1,
  );
  return recentScanPage(rows, limit, before);
}
