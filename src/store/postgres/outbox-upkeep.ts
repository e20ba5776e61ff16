/**
 * The outbox's upkeep on PostgreSQL, beside the request path: what no request may do at once, a
 * bounded batch per statement. A disabled endpoint's pending messages become failed; a deleted
 * endpoint's messages and attempts are deleted; delivered and failed messages past the retention go,
 * with their attempts. Rows are taken with SKIP LOCKED, so instances share the work without waiting on
 * each other, and the worker's claims and records never wait on it for more than one batch.
 */
import type { UpkeepDone, UpkeepRequest } from '../webhook-records.ts';
import { DB_NOW, stored } from './outbox.ts';
import type pg from 'pg';
import { one, type Tx } from './queries.ts';

/** Pending, not redelivered, and not under a live lease: what a disabled endpoint's upkeep fails. */
const STRANDED = `m.state = 'pending' AND NOT m.redeliver AND (m.lease_owner IS NULL OR m.lease_until < ${DB_NOW})`;

/** One step of upkeep: at most `batch` messages failed, `batch` purged and `batch` expired. */
export async function upkeep(tx: Tx, r: UpkeepRequest): Promise<UpkeepDone> {
  const failed = await inOrder(tx, (db) => failDisabled(db, r.batch));
  const purged = await inOrder(tx, (db) => purgeDeleted(db, r.batch));
  const expired = await inOrder(tx, (db) => expire(db, r.retentionSeconds, r.batch));
  return { failed, purged, expired };
}

/**
 * Runs a part of the upkeep in a transaction that walks its indexes in order. Each batch takes the
 * first rows of an index (`ORDER BY … LIMIT`); without statistics (a backlog written at once, before
 * autovacuum analyzed it) the planner read every row of the endpoint and sorted them instead, for
 * each batch: a million pending messages took four minutes to fail rather than half a minute.
 */
function inOrder(tx: Tx, part: (db: pg.PoolClient) => Promise<number>): Promise<number> {
  return tx(async (db) => {
    await db.query('SET LOCAL enable_sort = off');
    return part(db);
  });
}

/**
 * Fails a batch of one disabled endpoint's pending messages (a redelivered one keeps its attempt). The
 * endpoint's row is held FOR SHARE meanwhile: an organizer enabling it again waits for this batch,
 * and no batch starts once it is enabled.
 */
async function failDisabled(db: pg.PoolClient, batch: number): Promise<number> {
  const endpoint = await one<{ webhook_id: string }>(
    db,
    `SELECT w.webhook_id FROM webhooks w
      WHERE NOT w.enabled AND EXISTS (SELECT 1 FROM webhook_messages m WHERE m.webhook_id = w.webhook_id AND ${STRANDED})
      ORDER BY w.webhook_id LIMIT 1 FOR SHARE OF w SKIP LOCKED`,
  );
  if (endpoint === null) return 0;
  const result = await db.query(
    `UPDATE webhook_messages
        SET state = 'failed', next_attempt_at = NULL, finished_at = ${DB_NOW}, lease_until = NULL, lease_owner = NULL
      WHERE seq = ANY(ARRAY(
        SELECT m.seq FROM webhook_messages m WHERE m.webhook_id = $1 AND ${STRANDED}
         ORDER BY m.next_attempt_at, m.seq LIMIT $2 FOR UPDATE SKIP LOCKED))`,
    [endpoint.webhook_id, batch],
  );
  return result.rowCount ?? 0;
}

/**
 * Deletes a batch of messages (and their attempts) that `where` selects (`$2`: how many), in one
 * statement. The batch's keys go to the deletes as arrays: each is then an index lookup per key (joined
 * with the batch, the planner, blind to its size, walked the whole attempts index instead).
 */
const DELETE_BATCH = (where: string, order: string) => `
  WITH batch AS (
    SELECT ARRAY(SELECT m.message_id FROM webhook_messages m WHERE ${where} ORDER BY ${order} LIMIT $2
      FOR UPDATE SKIP LOCKED) AS ids),
  attempts AS (DELETE FROM webhook_attempts WHERE message_id = ANY((SELECT ids FROM batch)::text[]))
  DELETE FROM webhook_messages WHERE message_id = ANY((SELECT ids FROM batch)::text[])`;

/**
 * Deletes a batch of the messages of an endpoint that no longer exists. Such endpoints are found by
 * walking the distinct endpoints of the outbox through its index (one probe per endpoint, whatever
 * the backlog), so a message that a change committed just after its endpoint was deleted goes too.
 */
async function purgeDeleted(db: pg.PoolClient, batch: number): Promise<number> {
  const orphan = await one<{ webhook_id: string }>(
    db,
    `WITH RECURSIVE ids (webhook_id) AS (
       (SELECT webhook_id FROM webhook_messages ORDER BY webhook_id LIMIT 1)
       UNION ALL
       SELECT (SELECT m.webhook_id FROM webhook_messages m WHERE m.webhook_id > ids.webhook_id
                ORDER BY m.webhook_id LIMIT 1)
         FROM ids WHERE ids.webhook_id IS NOT NULL)
     SELECT webhook_id FROM ids
      WHERE webhook_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.webhook_id = ids.webhook_id)
      LIMIT 1`,
  );
  if (orphan === null) return 0;
  const result = await db.query(DELETE_BATCH('m.webhook_id = $1', 'm.seq'), [orphan.webhook_id, batch]);
  return result.rowCount ?? 0;
}

/** Deletes a batch of delivered and failed messages that ended before the retention, with their attempts. */
async function expire(db: pg.PoolClient, retentionSeconds: number, batch: number): Promise<number> {
  const before = stored('now() - make_interval(secs => $1)');
  const result = await db.query(DELETE_BATCH(`m.state <> 'pending' AND m.finished_at < ${before}`, 'm.finished_at'), [
    retentionSeconds,
    batch,
  ]);
  return result.rowCount ?? 0;
}
