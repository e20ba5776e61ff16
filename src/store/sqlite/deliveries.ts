/**
 * The mail outbox on SQLite: queueing tickets' emails, claims under a lease per claim (one process,
 * timed by the app's clock), the ends of attempts, and the lists.
 *
 * A claim and a batch of ends are units of the group commit (`group-commit.ts`), in a savepoint of the
 * transaction the check-ins arriving with them commit in, not transactions of their own: each of those
 * was a commit and an fsync of the WAL of its own (two per email while the gates were busy), and a
 * group of check-ins that came in behind one waited for that fsync before its own could start. Each is
 * still all or nothing, and answered once durable.
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
import type { SqliteContext } from './context.ts';
import type { GroupCommit } from './group-commit.ts';
import { anyDue, leaseDue } from './leases.ts';

const ASKED = 'SELECT value FROM json_each(?)';

/** The asked tids the event does not hold. */
function unknownTids(c: SqliteContext, eid: string, tids: string[]): string[] {
  const known = new Set(
    c
      .all<{ tid: string }>(`SELECT tid FROM tickets WHERE eid = ? AND tid IN (${ASKED})`, eid, JSON.stringify(tids))
      .map((row) => row.tid),
  );
  return [...new Set(tids)].filter((tid) => !known.has(tid));
}

/** Queues the event's tickets' emails (see DeliveryStore.queueDeliveries). */
export function queue(c: SqliteContext, r: QueueDeliveries): Promise<QueueAnswer> {
  return c.tx((): QueueAnswer => {
    if (r.tids !== null) {
      const unknown = unknownTids(c, r.eid, r.tids);
      if (unknown.length > 0) return { queued: 0, unknown };
    }
    const queued = c.run(
      `INSERT INTO deliveries (tid, eid, email, status, attempts, queued_at, next_attempt_at)
       SELECT t.tid, t.eid, t.email, 'queued', 0, ?, ? FROM tickets t
        WHERE t.eid = ? AND t.email IS NOT NULL AND t.revoked_at IS NULL
          ${r.tids === null ? '' : `AND t.tid IN (${ASKED})`}
       ON CONFLICT (tid) DO UPDATE SET email = excluded.email, status = 'queued', attempts = 0, last_error = NULL,
          queued_at = excluded.queued_at, sent_at = NULL, next_attempt_at = excluded.next_attempt_at,
          lease_until = NULL, lease_token = NULL
        WHERE deliveries.status = 'failed' OR (? AND deliveries.status = 'sent')`,
      ...[r.now, r.now, r.eid, ...(r.tids === null ? [] : [JSON.stringify(r.tids)]), r.resend ? 1 : 0],
    );
    return { queued, unknown: [] };
  });
}

/** Takes due deliveries, each under a lease of its own, in the next group; a look that finds none is a read. */
export async function claim(c: SqliteContext, group: GroupCommit, r: ClaimDeliveries): Promise<ClaimedDelivery[]> {
  const lease = {
    now: r.now,
    leaseUntil: new Date(Date.parse(r.now) + r.leaseSeconds * 1000).toISOString(),
    limit: r.limit,
    returning: 'tid, eid, email, attempts, lease_token',
  };
  if (!anyDue(c, DELIVERIES, lease)) return [];
  // The lease's condition is read again inside the group: what was due may have been claimed meanwhile.
  const rows = await group.run(() => leaseDue<Row>(c, DELIVERIES, lease));
  return rows.map(toClaimedDelivery);
}

/**
 * Records the attempts' ends in one unit of the next group, each under the claim that made it; a retry
 * is due its delay after the attempt's end.
 */
export function finish(c: SqliteContext, group: GroupCommit, results: DeliveryResult[]): Promise<void> {
  if (results.length === 0) return Promise.resolve();
  return group.run(() => {
    for (const r of results) {
      const o = r.outcome;
      const next =
        o.status === 'queued' ? new Date(Date.parse(r.ended_at) + o.retry_after_s * 1000).toISOString() : null;
      c.run(
        `UPDATE deliveries SET status = ?, attempts = attempts + 1, last_error = ?, sent_at = ?,
            next_attempt_at = ?, lease_until = NULL, lease_token = NULL
          WHERE tid = ? AND lease_token = ?`,
        o.status,
        o.status === 'sent' ? null : o.error,
        o.status === 'sent' ? r.ended_at : null,
        next,
        r.tid,
        r.lease_token,
      );
    }
  });
}

export function list(
  c: SqliteContext,
  eid: string,
  status: DeliveryStatus | null,
  limit: number,
  after: string | null,
): Promise<Page<DeliveryRecord>> {
  const rows = c.all<Row>(
    `SELECT * FROM deliveries WHERE eid = ? AND (? IS NULL OR status = ?) AND tid > ? ORDER BY tid LIMIT ?`,
    eid,
    status,
    status,
    after ?? '',
    limit + 1,
  );
  return Promise.resolve(page(rows.map(toDelivery), limit, (d) => d.tid));
}

export function summaries(c: SqliteContext, tids: string[]): Promise<Map<string, DeliverySummary>> {
  if (tids.length === 0) return Promise.resolve(new Map());
  const rows = c.all<DeliverySummary & { tid: string }>(
    `SELECT tid, status, sent_at, last_error FROM deliveries WHERE tid IN (${ASKED})`,
    JSON.stringify(tids),
  );
  return Promise.resolve(
    new Map(rows.map((row) => [row.tid, { status: row.status, sent_at: row.sent_at, last_error: row.last_error }])),
  );
}

export function queuedCount(c: SqliteContext): Promise<number> {
  return Promise.resolve(c.one<{ n: number }>(`SELECT count(*) AS n FROM deliveries WHERE status = 'queued'`)!.n);
}

export function counts(c: SqliteContext, eid: string): Promise<DeliveryCounts> {
  return Promise.resolve(toDeliveryCounts(c.one<Row>(countsQuery('?'), eid)));
}
