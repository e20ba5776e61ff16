/**
 * The mail outbox on PostgreSQL: queueing tickets' emails, claims under a lease per claim (rows taken
 * with SKIP LOCKED, leases and retries timed by the database's clock, so the instances' clocks do not
 * matter), the ends of attempts, and the lists.
 */
import {
  type ClaimDeliveries,
  type ClaimedDelivery,
  countsQuery,
  type DeliveryCounts,
  type DeliveryRecord,
  type DeliveryResult,
  type DeliveryStatus,
  type DeliverySummary,
  type QueueAnswer,
  type QueueDeliveries,
  toClaimedDelivery,
  toDelivery,
  toDeliveryCounts,
} from '../delivery-records.ts';
import { DELIVERIES } from '../lease-tables.ts';
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import { claimSql } from './leases.ts';
import { DB_NOW, stored } from './outbox.ts';
import { all, type Db, one, type Tx } from './queries.ts';

/** Queues the event's tickets' emails (see DeliveryStore.queueDeliveries); a new one is due now by the database's clock. */
export function queue(tx: Tx, r: QueueDeliveries): Promise<QueueAnswer> {
  return tx(async (db): Promise<QueueAnswer> => {
    if (r.tids !== null) {
      const known = new Set(
        (
          await all<{ tid: string }>(db, 'SELECT tid FROM tickets WHERE eid = $1 AND tid = ANY($2::text[])', [
            r.eid,
            r.tids,
          ])
        ).map((row) => row.tid),
      );
      const unknown = [...new Set(r.tids)].filter((tid) => !known.has(tid));
      if (unknown.length > 0) return { queued: 0, unknown };
    }
    const result = await db.query(
      `INSERT INTO deliveries (tid, eid, email, status, attempts, queued_at, next_attempt_at)
       SELECT t.tid, t.eid, t.email, 'queued', 0, $1, ${DB_NOW} FROM tickets t
        WHERE t.eid = $2 AND t.email IS NOT NULL AND t.revoked_at IS NULL
          AND ($3::text[] IS NULL OR t.tid = ANY($3::text[]))
       ON CONFLICT (tid) DO UPDATE SET email = excluded.email, status = 'queued', attempts = 0, last_error = NULL,
          queued_at = excluded.queued_at, sent_at = NULL, next_attempt_at = excluded.next_attempt_at,
          lease_until = NULL, lease_token = NULL
        WHERE deliveries.status = 'failed' OR ($4 AND deliveries.status = 'sent')`,
      [r.now, r.eid, r.tids, r.resend],
    );
    return { queued: result.rowCount ?? 0, unknown: [] };
  });
}

/** Takes due deliveries, each under a lease of its own until the database's now plus `leaseSeconds`. */
export async function claim(db: Db, r: ClaimDeliveries): Promise<ClaimedDelivery[]> {
  const rows = await all<Row>(
    db,
    claimSql(DELIVERIES, {
      now: DB_NOW,
      leaseUntil: stored('now() + make_interval(secs => $1)'),
      limit: '$2',
      returning: 'tid, eid, email, attempts, lease_token',
    }),
    [r.leaseSeconds, r.limit],
  );
  return rows.map(toClaimedDelivery);
}

/** Records the attempts' ends in one statement, each under the claim that made it; a retry is due its delay after now. */
export async function finish(db: Db, results: DeliveryResult[]): Promise<void> {
  if (results.length === 0) return;
  const column = <T>(of: (r: DeliveryResult) => T) => results.map(of);
  await db.query(
    `UPDATE deliveries d SET status = u.status, attempts = d.attempts + 1, last_error = u.error,
        sent_at = CASE WHEN u.status = 'sent' THEN u.ended_at END,
        next_attempt_at = CASE WHEN u.status = 'queued' THEN ${stored('now() + make_interval(secs => u.delay)')} END,
        lease_until = NULL, lease_token = NULL
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[])
         AS u (tid, token, status, error, ended_at, delay)
      WHERE d.tid = u.tid AND d.lease_token = u.token`,
    [
      column((r) => r.tid),
      column((r) => r.lease_token),
      column((r) => r.outcome.status),
      column((r) => (r.outcome.status === 'sent' ? null : r.outcome.error)),
      column((r) => r.ended_at),
      column((r) => (r.outcome.status === 'queued' ? r.outcome.retry_after_s : null)),
    ],
  );
}

export async function list(
  db: Db,
  eid: string,
  status: DeliveryStatus | null,
  limit: number,
  after: string | null,
): Promise<Page<DeliveryRecord>> {
  const rows = await all<Row>(
    db,
    `SELECT * FROM deliveries WHERE eid = $1 AND ($2::text IS NULL OR status = $2) AND tid > $3 ORDER BY tid LIMIT $4`,
    [eid, status, after ?? '', limit + 1],
  );
  return page(rows.map(toDelivery), limit, (d) => d.tid);
}

export async function summaries(db: Db, tids: string[]): Promise<Map<string, DeliverySummary>> {
  if (tids.length === 0) return new Map();
  const rows = await all<DeliverySummary & { tid: string }>(
    db,
    'SELECT tid, status, sent_at, last_error FROM deliveries WHERE tid = ANY($1::text[])',
    [tids],
  );
  return new Map(
    rows.map((row) => [row.tid, { status: row.status, sent_at: row.sent_at, last_error: row.last_error }]),
  );
}

export async function queuedCount(db: Db): Promise<number> {
  const row = await one<{ n: string }>(db, `SELECT count(*) AS n FROM deliveries WHERE status = 'queued'`);
  return Number(row?.n ?? 0);
}

export async function counts(db: Db, eid: string): Promise<DeliveryCounts> {
  return toDeliveryCounts(await one<Row>(db, countsQuery('$1'), [eid]));
}
