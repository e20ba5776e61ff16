/**
 * The webhook outbox's delivery on PostgreSQL: claims under a lease per claim (rows taken with SKIP
 * LOCKED, so two instances never claim one message, and timed by the database's clock, so the
 * instances' clocks do not matter); the end of each attempt; the deliveries log. The messages are
 * written by outbox.ts.
 */
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import {
  type AttemptResult,
  type ClaimedMessage,
  type ClaimRequest,
  deliveriesOf,
  type DeliveryRecord,
  failureRuns,
  toClaimed,
} from '../webhook-records.ts';
import { DB_NOW, stored } from './outbox.ts';
import { all, type Db, one, type Tx } from './queries.ts';
import { disableWebhook, retried } from './webhooks.ts';

/** The first due messages of the endpoint in `room`, without a live lease, locked; `redelivered`: only those. */
const dueOf = (redelivered: boolean) => `
  SELECT due.message_id FROM room
  CROSS JOIN LATERAL (
    SELECT m.message_id FROM webhook_messages m
     WHERE m.webhook_id = room.webhook_id AND m.state = 'pending' ${redelivered ? 'AND m.redeliver' : ''}
       AND m.next_attempt_at <= ${DB_NOW} AND (m.lease_until IS NULL OR m.lease_until < ${DB_NOW})
     ORDER BY m.next_attempt_at, m.seq LIMIT room.free
     FOR UPDATE SKIP LOCKED) due
  WHERE room.free > 0 AND ${redelivered ? 'NOT' : ''} room.enabled
  LIMIT $3`;

/**
 * Takes due messages, each under a lease of its own (a fresh token, until the database's now plus
 * `leaseSeconds`): no two workers attempt one message at the same moment (rows taken with SKIP LOCKED),
 * and a result can only be recorded under the claim that made it. An enabled endpoint's first due
 * messages are read by index (`webhook_messages_due_of`), as many as the worker has room for; a
 * disabled one's only redelivered messages are taken (`webhook_messages_redelivered`), never its backlog.
 */
export async function claim(db: Db, r: ClaimRequest): Promise<ClaimedMessage[]> {
  const rows = await all<Row>(
    db,
    `WITH room AS (
       SELECT w.webhook_id, w.enabled, LEAST(COALESCE(l.free, $2), $3) AS free
         FROM webhooks w LEFT JOIN unnest($4::text[], $5::int[]) AS l (webhook_id, free) ON l.webhook_id = w.webhook_id),
     enabled_due AS (${dueOf(false)}),
     redelivered_due AS (${dueOf(true)}),
     locked AS (SELECT message_id FROM enabled_due UNION ALL SELECT message_id FROM redelivered_due LIMIT $3)
     UPDATE webhook_messages m
        SET lease_until = ${stored('now() + make_interval(secs => $1)')},
            lease_owner = replace(gen_random_uuid()::text, '-', ''), redeliver = FALSE
       FROM locked WHERE m.message_id = locked.message_id
     RETURNING m.*`,
    [r.leaseSeconds, r.perEndpoint, r.limit, r.limits.map((l) => l.webhook_id), r.limits.map((l) => l.free)],
  );
  return rows.map(toClaimed);
}

/**
 * What an attempt's end makes of its message: a redelivery asked for while it was under way makes it
 * due again now, whatever the attempt answered; a retry of a disabled endpoint's message fails it.
 */
const NEXT_STATE = `CASE WHEN m.redeliver THEN 'pending' WHEN e.state = 'pending' AND NOT w.enabled THEN 'failed'
  ELSE e.state END`;

/**
 * Records the attempts' ends in one transaction: first each endpoint's failure run (in endpoint order,
 * so two instances never wait on each other in a cycle) and whether it is disabled now (a 410 disables
 * it whatever else the batch holds), then every message still under the claim that attempted it, and
 * its attempt row, in one statement. A retry is due its delay after now, by the database's clock.
 */
export function finish(tx: Tx, results: AttemptResult[]): Promise<void> {
  return retried(() =>
    tx(async (db) => {
      for (const [webhookId, run] of [...failureRuns(results)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (run.failingSince === null) {
          // The endpoint's row is written only when its run ends: a batch of deliveries takes no lock on it.
          await db.query(
            'UPDATE webhooks SET failing_since = NULL WHERE webhook_id = $1 AND failing_since IS NOT NULL',
            [webhookId],
          );
          if (run.gone) await disableWebhook(db, webhookId, 'gone');
          continue;
        }
        const endpoint = await one<{ enabled: boolean; failing_since: string }>(
          db,
          `UPDATE webhooks SET failing_since = CASE WHEN $3 THEN $2 ELSE COALESCE(failing_since, $2) END
          WHERE webhook_id = $1 RETURNING enabled, failing_since`,
          [webhookId, run.failingSince, run.restarted],
        );
        if (!endpoint?.enabled) continue;
        if (run.gone) await disableWebhook(db, webhookId, 'gone');
        else if (endpoint.failing_since <= run.failingBefore) await disableWebhook(db, webhookId, 'failing');
      }
      await db.query(
        `WITH e AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::boolean[], $6::text[], $7::int[],
           $8::text[], $9::int[])
           AS e (message_id, token, state, delay_s, step, at, status_code, error, duration_ms)),
       moved AS (
         UPDATE webhook_messages m
            SET state = ${NEXT_STATE},
                next_attempt_at = CASE WHEN m.redeliver THEN ${DB_NOW}
                  WHEN ${NEXT_STATE} = 'pending' THEN ${stored('now() + make_interval(secs => e.delay_s)')} END,
                finished_at = CASE WHEN ${NEXT_STATE} = 'pending' THEN NULL ELSE ${DB_NOW} END,
                schedule_step = m.schedule_step + CASE WHEN e.step AND NOT m.redeliver THEN 1 ELSE 0 END,
                attempt_count = m.attempt_count + 1, lease_until = NULL, lease_owner = NULL
           FROM e JOIN webhooks w ON TRUE
          WHERE m.message_id = e.message_id AND m.lease_owner = e.token AND w.webhook_id = m.webhook_id
         RETURNING m.message_id, m.attempt_count)
       INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms)
       SELECT moved.message_id, moved.attempt_count, e.at, e.status_code, e.error, e.duration_ms
         FROM moved JOIN e ON e.message_id = moved.message_id`,
        [
          results.map((r) => r.message_id),
          results.map((r) => r.lease_token),
          results.map((r) => r.next.state),
          results.map((r) => (r.next.state === 'pending' ? r.next.delay_s : null)),
          results.map((r) => r.next.state === 'pending' && r.next.step),
          results.map((r) => r.attempt.at),
          results.map((r) => r.attempt.status_code),
          results.map((r) => r.attempt.error),
          results.map((r) => r.attempt.duration_ms),
        ],
      );
    }),
  );
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

/**
 * Makes a message pending again, due now (by the database's clock), and marks the redelivery asked for:
 * an attempt under way then ends with the message due again rather than overwriting the request, and a
 * disabled endpoint's claim takes it. False when the endpoint has no such message.
 */
export async function redeliver(db: Db, webhookId: string, messageId: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE webhook_messages SET state = 'pending', redeliver = TRUE, next_attempt_at = ${DB_NOW}, finished_at = NULL
      WHERE webhook_id = $1 AND message_id = $2`,
    [webhookId, messageId],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function pendingCount(db: Db): Promise<number> {
  const row = await one<{ n: string }>(db, `SELECT COUNT(*) AS n FROM webhook_messages WHERE state = 'pending'`);
  return Number(row?.n ?? 0);
}
