/**
 * The webhook outbox on PostgreSQL: messages written in the transaction of the change they report,
 * one per subscribed endpoint; claims under a lease (rows taken with SKIP LOCKED, so two instances
 * never claim one message); the end of each attempt; the deliveries log.
 */
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import {
  type AttemptResult,
  type ClaimedMessage,
  type ClaimRequest,
  deliveriesOf,
  type DeliveryRecord,
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
 * each with the check-in it conflicts with; inside the caller's transaction.
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
     JOIN LATERAL (
       SELECT x.* FROM scans x
        WHERE x.eid = d.eid AND x.tid = d.tid AND x.outcome = 'valid' AND x.replay = FALSE
          AND x.scanner_id <> d.scanner_id AND (d.admitted_offline OR d.scanned_at < x.received_at)
        ORDER BY x.scan_id DESC LIMIT 1) v ON TRUE
     JOIN tickets t ON t.tid = d.tid
     JOIN webhook_subscriptions s ON s.type IN ('checkin.conflict', '*') AND s.eid_key IN (d.eid, '')
     WHERE d.eid = $1 AND d.idempotency_key = ANY($2::text[]) AND d.outcome = 'already_used'
       AND d.replay = FALSE AND d.turned_away_offline = FALSE`,
    [eid, keys, at],
  );
}

/** Takes due messages under a lease: no two workers attempt one message at the same moment. */
export async function claim(db: Db, r: ClaimRequest): Promise<ClaimedMessage[]> {
  const rows = await all<Row>(
    db,
    `WITH ranked AS (
       SELECT message_id, next_attempt_at, seq FROM (
         SELECT message_id, webhook_id, next_attempt_at, seq,
                row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, seq) AS rn
           FROM webhook_messages
          WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)) c
       LEFT JOIN unnest($5::text[], $7::int[]) AS l (webhook_id, free) ON l.webhook_id = c.webhook_id
       WHERE rn <= COALESCE(l.free, $4)
       ORDER BY next_attempt_at, seq LIMIT $6),
     locked AS (
       SELECT m.message_id FROM webhook_messages m
        WHERE m.message_id IN (SELECT message_id FROM ranked)
          AND m.state = 'pending' AND (m.lease_until IS NULL OR m.lease_until < $1)
        FOR UPDATE SKIP LOCKED)
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

/** Records the attempts' ends in one transaction: their rows, the messages' states, the endpoints'. */
export function finish(tx: Tx, results: AttemptResult[]): Promise<void> {
  return tx(async (db) => {
    // Endpoints in one order, whoever finishes: two instances never wait on each other in a cycle.
    const sorted = [...results].sort((a, b) =>
      a.webhook_id < b.webhook_id ? -1 : a.webhook_id > b.webhook_id ? 1 : 0,
    );
    for (const r of sorted) {
      if (r.next.state !== 'delivered') {
        const endpoint = await one<{ enabled: boolean; failing_since: string }>(
          db,
          `UPDATE webhooks SET failing_since = COALESCE(failing_since, $1) WHERE webhook_id = $2
           RETURNING enabled, failing_since`,
          [r.attempt.at, r.webhook_id],
        );
        const reason =
          r.disable ?? (endpoint?.enabled === true && endpoint.failing_since <= r.failing_before ? 'failing' : null);
        if (reason !== null) await disable(db, r.webhook_id, reason);
      } else {
        await db.query('UPDATE webhooks SET failing_since = NULL WHERE webhook_id = $1 AND failing_since IS NOT NULL', [
          r.webhook_id,
        ]);
      }
      const enabled = await one<{ enabled: boolean }>(db, 'SELECT enabled FROM webhooks WHERE webhook_id = $1', [
        r.webhook_id,
      ]);
      // A disabled endpoint's message is not tried again (a redelivery makes it pending once more).
      const next = r.next.state === 'pending' && enabled?.enabled !== true ? { state: 'failed' as const } : r.next;
      const updated = await one<{ attempt_count: number }>(
        db,
        `UPDATE webhook_messages SET state = $1, next_attempt_at = $2, attempt_count = attempt_count + 1,
           lease_until = NULL, lease_owner = NULL
         WHERE message_id = $3 AND lease_owner = $4 RETURNING attempt_count`,
        [next.state, next.state === 'pending' ? next.next_attempt_at : null, r.message_id, r.lease_owner],
      );
      if (!updated) continue;
      await db.query(
        'INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          r.message_id,
          updated.attempt_count,
          r.attempt.at,
          r.attempt.status_code,
          r.attempt.error,
          r.attempt.duration_ms,
        ],
      );
    }
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
