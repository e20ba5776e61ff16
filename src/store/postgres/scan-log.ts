import { recentScanPage } from '../recent-scans.ts';
import { type Row, scanLogSql } from '../rows.ts';
import type { RecentScanPage } from '../store.ts';
import { all, type Db } from './queries.ts';

/**
 * The event's latest scans, newest first, before a cursor (the log position: positions commit in
 * order, so the newest one read has every lower one committed before it).
 */
export async function listRecentScans(
  db: Db,
  eid: string,
  limit: number,
  before: number | null,
): Promise<RecentScanPage> {
  const rows = await all<Row>(
    db,
    `${scanLogSql('s.log_position')} WHERE s.eid = $1 AND s.log_position < $2 ORDER BY s.log_position DESC LIMIT $3`,
    [eid, before ?? Number.MAX_SAFE_INTEGER, limit + 1],
  );
  return recentScanPage(rows, limit, before);
}
