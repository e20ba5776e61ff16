/**
 * The outbox's upkeep on SQLite, beside the request path: what no request may do at once, a bounded
 * batch per transaction (each holds the write lock for a few milliseconds, so check-ins commit in
 * between). A disabled endpoint's pending messages become failed; a deleted endpoint's messages and
 * attempts are deleted; delivered and failed messages past the retention go, with their attempts.
 */
import type { UpkeepDone, UpkeepRequest } from '../webhook-records.ts';
import type { SqliteContext } from './context.ts';

/** Pending, not redelivered, and not under a live lease (`?`: now): what a disabled endpoint's upkeep fails. */
const STRANDED = `m.state = 'pending' AND m.redeliver = 0 AND (m.lease_owner IS NULL OR m.lease_until < ?)`;

/** One step of upkeep: at most `batch` messages failed, `batch` purged and `batch` expired. */
export async function upkeep(c: SqliteContext, r: UpkeepRequest): Promise<UpkeepDone> {
  const failed = await failDisabled(c, r.now, r.batch);
  const purged = await purgeDeleted(c, r.batch);
  const cutoff = new Date(Date.parse(r.now) - r.retentionSeconds * 1000).toISOString();
  const expired = await deleteMessages(
    c,
    c.all<{ message_id: string }>(
      `SELECT message_id FROM webhook_messages WHERE state <> 'pending' AND finished_at < ? ORDER BY finished_at LIMIT ?`,
      cutoff,
      r.batch,
    ),
  );
  return { failed, purged, expired };
}

/**
 * Fails a batch of one disabled endpoint's pending messages (a redelivered one keeps its attempt). The
 * endpoint is found through its pending messages' index (named: without statistics, SQLite would walk
 * every message the endpoint ever had).
 */
function failDisabled(c: SqliteContext, now: string, batch: number): Promise<number> {
  const endpoint = c.one<{ webhook_id: string }>(
    `SELECT w.webhook_id FROM webhooks w
      WHERE w.enabled = 0 AND EXISTS (
        SELECT 1 FROM webhook_messages m INDEXED BY webhook_messages_due_of
         WHERE m.webhook_id = w.webhook_id AND ${STRANDED})
      LIMIT 1`,
    now,
  );
  if (endpoint === null) return Promise.resolve(0);
  return c.tx(() =>
    c.run(
      `UPDATE webhook_messages
          SET state = 'failed', next_attempt_at = NULL, finished_at = ?, lease_until = NULL, lease_owner = NULL
        WHERE seq IN (
          SELECT m.seq FROM webhook_messages m
           WHERE m.webhook_id = ? AND ${STRANDED} AND EXISTS (SELECT 1 FROM webhooks w WHERE w.webhook_id = m.webhook_id AND w.enabled = 0)
           ORDER BY m.next_attempt_at, m.seq LIMIT ?)`,
      now,
      endpoint.webhook_id,
      now,
      batch,
    ),
  );
}

/**
 * Deletes a batch of the messages of an endpoint that no longer exists. Such endpoints are found by
 * walking the distinct endpoints of the outbox through its index (one probe per endpoint, whatever
 * the backlog).
 */
function purgeDeleted(c: SqliteContext, batch: number): Promise<number> {
  const orphan = c.one<{ webhook_id: string }>(
    `WITH RECURSIVE ids (webhook_id) AS (
       SELECT (SELECT webhook_id FROM webhook_messages ORDER BY webhook_id LIMIT 1)
       UNION ALL
       SELECT (SELECT m.webhook_id FROM webhook_messages m WHERE m.webhook_id > ids.webhook_id
                ORDER BY m.webhook_id LIMIT 1)
         FROM ids WHERE ids.webhook_id IS NOT NULL)
     SELECT webhook_id FROM ids
      WHERE webhook_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.webhook_id = ids.webhook_id)
      LIMIT 1`,
  );
  if (orphan === null) return Promise.resolve(0);
  return deleteMessages(
    c,
    c.all<{ message_id: string }>(
      'SELECT message_id FROM webhook_messages WHERE webhook_id = ? ORDER BY seq LIMIT ?',
      orphan.webhook_id,
      batch,
    ),
  );
}

/** Deletes these messages and their attempts, in one transaction. */
function deleteMessages(c: SqliteContext, messages: { message_id: string }[]): Promise<number> {
  if (messages.length === 0) return Promise.resolve(0);
  const ids = JSON.stringify(messages.map((m) => m.message_id));
  return c.tx(() => {
    c.run('DELETE FROM webhook_attempts WHERE message_id IN (SELECT value FROM json_each(?))', ids);
    return c.run('DELETE FROM webhook_messages WHERE message_id IN (SELECT value FROM json_each(?))', ids);
  });
}
