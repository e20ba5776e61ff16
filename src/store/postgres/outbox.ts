/**
 * The webhook outbox on PostgreSQL: messages written in the transaction of the change they report,
 * one per subscribed endpoint; claims under a lease (rows taken with SKIP LOCKED, so two instances
 * never claim one message); the end of each attempt; the deliveries log.
 */
import { COLLIDED_WITH, CONFLICTS_WITH } from '../conflicts.ts';
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import {
  type AttemptResult,
  type ClaimedMessage,
  type ClaimRequest,
  deliveriesOf,
  type DeliveryRecord,
  failureRuns,
  type OutboxMessage,
  toClaimed,
} from '../webhook-records.ts';
import { all, type Db, one, type Tx } from './queries.ts';
import { failPending } from './webhooks.ts';

export const NEW_MESSAGE_ID = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/** Writes the message for every endpoint subscribed to its type and event; inside the caller's transaction. */
export async function fanOut(db: Db, m: OutboxMessage): Promise<void> {
  await db.query(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_MESSAGE_ID}, webhook_id, $1, $2, $3, $4, 'pending', $4
       FROM webhook_subscriptions WHERE type IN ($1, '*') AND eid_key IN ($5, '')`,
    [m.type, JSON.stringify(m.data), m.position, m.occurred_at, m.eid ?? ''],
  );
}

/** Writes a message for one endpoint, whatever it subscribes to (a test message); its message_id. */
export async function enqueueTo(db: Db, webhookId: string, m: OutboxMessage): Promise<string> {
  const row = await one<{ message_id: string }>(
    db,
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     VALUES (${NEW_MESSAGE_ID}, $1, $2, $3, $4, $5, 'pending', $5) RETURNING message_id`,
    [webhookId, m.type, JSON.stringify(m.data), m.position, m.occurred_at],
  );
  return row!.message_id;
}

/**
 * The conflicts that scans just logged under these idempotency keys make (the conflicts report's rule),
 * each with the entry it collided with; inside the caller's transaction.
 */
export async function fanOutConflicts(db: Db, eid: string, keys: string[], at: string): Promise<void> {
  if (keys.length === 0) return;
  await db.query(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_MESSAGE_ID}, s.webhook_id, 'checkin.conflict',
       json_build_object('eid', d.eid, 'tid', d.tid, 'holder_name', t.holder_name,
         'first', json_build_object('scanner_id', v.scanner_id, 'gate_id', v.gate_id, 'scanned_at', v.scanned_at,
           'received_at', v.received_at),
         'duplicate', json_build_object('scanner_id', d.scanner_id, 'gate_id', d.gate_id, 'scanned_at', d.scanned_at,
           'received_at', d.received_at, 'admitted_offline', d.admitted_offline))::text,
       NULL, $3, 'pending', $3
     FROM scans d
     JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')} AND ${CONFLICTS_WITH('d', 'v')}
     JOIN tickets t ON t.tid = d.tid
     JOIN webhook_subscriptions s ON s.type IN ('checkin.conflict', '*') AND s.eid_key IN (d.eid, '')
     WHERE d.eid = $1 AND d.idempotency_key = ANY($2::text[]) AND d.outcome = 'already_used'
       AND d.replay = FALSE AND d.turned_away_offline = FALSE`,
    [eid, keys, at],
  );
}

/**
 * Takes due messages under a lease: no two workers attempt one message at the same moment (rows
 * taken with SKIP LOCKED, then leased). Each endpoint's first due messages are read by index
 * (`webhook_messages_due_of`), as many as the worker has room for.
 */
export async function claim(db: Db, r: ClaimRequest): Promise<ClaimedMessage[]> {
  const rows = await all<Row>(
    db,
    `WITH room AS (
       SELECT w.webhook_id, LEAST(COALESCE(l.free, $4), $6) AS free
         FROM webhooks w LEFT JOIN unnest($5::text[], $7::int[]) AS l (webhook_id, free) ON l.webhook_id = w.webhook_id),
     locked AS (
       SELECT due.message_id FROM room
       CROSS JOIN LATERAL (
         SELECT m.message_id FROM webhook_messages m
          WHERE m.webhook_id = room.webhook_id AND m.state = 'pending' AND m.next_attempt_at <= $1
            AND (m.lease_until IS NULL OR m.lease_until < $1)
          ORDER BY m.next_attempt_at, m.seq LIMIT room.free
          FOR UPDATE SKIP LOCKED) due
       WHERE room.free > 0
       LIMIT $6)
     UPDATE webhook_messages m SET lease_until = $2, lease_owner = $3
       FROM locked WHERE m.message_id = locked.message_id
     RETURNING m.*`,
    [
      r.now,
      r.leaseUntil,
      r.owner,
      r.perEndpoint,
      r.limits.map((l) => l.webhook_id),
      r.limit,
      r.limits.map((l) => l.free),
    ],
  );
  return rows.map(toClaimed);
}

/**
 * Records the attempts' ends in one transaction: first each endpoint's failure run (in endpoint order,
 * so two instances never wait on each other in a cycle) and whether it is disabled now, then every
 * message and its attempt row in one statement. A message whose endpoint is disabled is not tried again.
 */
export function finish(tx: Tx, results: AttemptResult[]): Promise<void> {
  return tx(async (db) => {
    for (const [webhookId, run] of [...failureRuns(results)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (run.failingSince === null) {
        await db.query('UPDATE webhooks SET failing_since = NULL WHERE webhook_id = $1 AND failing_since IS NOT NULL', [
          webhookId,
        ]);
        continue;
      }
      const endpoint = await one<{ enabled: boolean; failing_since: string }>(
        db,
        `UPDATE webhooks SET failing_since = CASE WHEN $3 THEN $1 ELSE COALESCE(failing_since, $1) END
          WHERE webhook_id = $2 RETURNING enabled, failing_since`,
        [run.failingSince, webhookId, run.restarted],
      );
      const reason = run.gone
        ? 'gone'
        : endpoint?.enabled && endpoint.failing_since <= run.failingBefore
          ? 'failing'
          : null;
      if (reason !== null) await disable(db, webhookId, reason);
    }
    await db.query(
      `WITH ended AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::int[])
           AS e (message_id, owner, state, next_attempt_at, at, status_code, error, duration_ms)),
       moved AS (
         UPDATE webhook_messages m
            SET state = CASE WHEN ended.state = 'pending' AND NOT w.enabled THEN 'failed' ELSE ended.state END,
                next_attempt_at = CASE WHEN ended.state = 'pending' AND w.enabled THEN ended.next_attempt_at END,
                attempt_count = m.attempt_count + 1, lease_until = NULL, lease_owner = NULL
           FROM ended JOIN webhooks w ON TRUE
          WHERE m.message_id = ended.message_id AND m.lease_owner = ended.owner AND w.webhook_id = m.webhook_id
         RETURNING m.message_id, m.attempt_count)
       INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms)
       SELECT moved.message_id, moved.attempt_count, ended.at, ended.status_code, ended.error, ended.duration_ms
         FROM moved JOIN ended ON ended.message_id = moved.message_id`,
      [
        results.map((r) => r.message_id),
        results.map((r) => r.lease_owner),
        results.map((r) => r.next.state),
        results.map((r) => (r.next.state === 'pending' ? r.next.next_attempt_at : null)),
        results.map((r) => r.attempt.at),
        results.map((r) => r.attempt.status_code),
        results.map((r) => r.attempt.error),
        results.map((r) => r.attempt.duration_ms),
      ],
    );
  });
}

async function disable(db: Db, webhookId: string, reason: string): Promise<void> {
  await db.query('UPDATE webhooks SET enabled = FALSE, disabled_reason = $1 WHERE webhook_id = $2 AND enabled', [
    reason,
    webhookId,
  ]);
  await db.query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [webhookId]);
  await failPending(db, webhookId);
}

/** An endpoint's messages, newest first, each with its attempts, read in one snapshot. */
export function listDeliveries(
  tx: Tx,
  webhookId: string,
  limit: number,
  before: number | null,
): Promise<Page<DeliveryRecord>> {
  return tx(async (db) => {
    await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const rows = await all<Row>(
      db,
      'SELECT * FROM webhook_messages WHERE webhook_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
      [webhookId, before ?? Number.MAX_SAFE_INTEGER, limit + 1],
    );
    const shown = rows.slice(0, limit).map((r) => r.message_id as string);
    const attempts = await all<Row>(
      db,
      'SELECT * FROM webhook_attempts WHERE message_id = ANY($1::text[]) ORDER BY message_id, n',
      [shown],
    );
    return page(deliveriesOf(rows, attempts), limit, (d) => String(d.seq));
  });
}

/** Makes a message pending again, due now; false when the endpoint has no such message. */
export async function redeliver(db: Db, webhookId: string, messageId: string, now: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE webhook_messages SET state = 'pending', next_attempt_at = $1 WHERE webhook_id = $2 AND message_id = $3`,
    [now, webhookId, messageId],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function pendingCount(db: Db): Promise<number> {
  const row = await one<{ n: string }>(db, `SELECT COUNT(*) AS n FROM webhook_messages WHERE state = 'pending'`);
  return Number(row?.n ?? 0);
}
