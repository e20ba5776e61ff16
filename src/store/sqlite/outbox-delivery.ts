/**
 * The webhook outbox's delivery on SQLite: claims under a lease per claim; the end of each attempt; the
 * deliveries log. The messages are written by outbox.ts.
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
import type { SqliteContext } from './context.ts';
import { disableWebhook } from './webhooks.ts';

/** A claim's lease token, fresh for each message. */
const NEW_TOKEN = 'lower(hex(randomblob(16)))';

/** Due, and without a live lease (`?` twice: now). */
const DUE = `m.state = 'pending' AND m.next_attempt_at <= ? AND (m.lease_until IS NULL OR m.lease_until < ?)`;

/**
 * Takes due messages, each under a lease of its own (a fresh token, until now plus `leaseSeconds`): no
 * two workers attempt one message at the same moment, and a result can only be recorded under the claim
 * that made it. Each enabled endpoint's first due messages are read by index
 * (`webhook_messages_due_of`), as many as the worker has room for; of a disabled endpoint only the
 * messages redelivered (`webhook_messages_redelivered`), never its backlog.
 */
export function claim(c: SqliteContext, r: ClaimRequest): Promise<ClaimedMessage[]> {
  // Most looks find nothing due: reads, without taking the write lock or syncing a commit.
  const endpoints = [
    ...c.all<{ webhook_id: string; enabled: number }>(
      `SELECT w.webhook_id, 1 AS enabled FROM webhooks w
        WHERE w.enabled = 1 AND EXISTS (SELECT 1 FROM webhook_messages m WHERE m.webhook_id = w.webhook_id AND ${DUE})`,
      r.now,
      r.now,
    ),
    ...c.all<{ webhook_id: string; enabled: number }>(
      `SELECT DISTINCT m.webhook_id, 0 AS enabled FROM webhook_messages m
        WHERE m.state = 'pending' AND m.redeliver = 1 AND ${DUE}
          AND m.webhook_id IN (SELECT webhook_id FROM webhooks WHERE enabled = 0)`,
      r.now,
      r.now,
    ),
  ];
  if (endpoints.length === 0) return Promise.resolve([]);
  const room = new Map(r.limits.map((l) => [l.webhook_id, l.free]));
  const leaseUntil = new Date(Date.parse(r.now) + r.leaseSeconds * 1000).toISOString();
  return c.tx(() => {
    const claimed: ClaimedMessage[] = [];
    for (const { webhook_id, enabled } of endpoints) {
      const take = Math.min(room.get(webhook_id) ?? r.perEndpoint, r.limit - claimed.length);
      if (take <= 0) continue;
      const rows = c.all<Row>(
        `UPDATE webhook_messages SET lease_until = ?, lease_owner = ${NEW_TOKEN}, redeliver = 0
          WHERE message_id IN (
            SELECT message_id FROM webhook_messages m
             WHERE m.webhook_id = ? AND ${DUE} ${enabled ? '' : 'AND m.redeliver = 1'}
             ORDER BY m.next_attempt_at, m.seq LIMIT ?)
          RETURNING *`,
        leaseUntil,
        webhook_id,
        r.now,
        r.now,
        take,
      );
      claimed.push(...rows.map(toClaimed));
    }
    return claimed;
  });
}

/**
 * Records the attempts' ends in one transaction: each endpoint's failure run and whether it is disabled
 * now (a 410 disables it whatever else the batch holds), then each message still under the claim that
 * attempted it, and its attempt row. A retry is due its delay after the attempt's end; a redelivery
 * asked for meanwhile makes the message due again at once; a disabled endpoint's retry fails it.
 */
export function finish(c: SqliteContext, results: AttemptResult[]): Promise<void> {
  return c.tx(() => {
    for (const [webhookId, run] of failureRuns(results)) {
      if (run.failingSince === null) {
        c.run('UPDATE webhooks SET failing_since = NULL WHERE webhook_id = ? AND failing_since IS NOT NULL', webhookId);
      } else {
        c.run(
          'UPDATE webhooks SET failing_since = CASE WHEN ? THEN ? ELSE COALESCE(failing_since, ?) END WHERE webhook_id = ?',
          run.restarted ? 1 : 0,
          run.failingSince,
          run.failingSince,
          webhookId,
        );
      }
      const failing =
        run.failingSince !== null &&
        c.one('SELECT 1 FROM webhooks WHERE webhook_id = ? AND failing_since <= ?', webhookId, run.failingBefore);
      if (run.gone) disableWebhook(c, webhookId, 'gone');
      else if (failing) disableWebhook(c, webhookId, 'failing');
    }
    for (const r of results) record(c, r);
  });
}

/** One attempt's end, if its message is still under the claim that made it. */
function record(c: SqliteContext, r: AttemptResult): void {
  const message = c.one<{ redeliver: number; enabled: number }>(
    `SELECT m.redeliver, w.enabled FROM webhook_messages m JOIN webhooks w ON w.webhook_id = m.webhook_id
      WHERE m.message_id = ? AND m.lease_owner = ?`,
    r.message_id,
    r.lease_token,
  );
  if (message === null) return; // taken over by a newer claim, or its endpoint is gone
  const ended = Date.parse(r.ended_at);
  let state: string = r.next.state;
  let due: string | null = null;
  if (message.redeliver === 1) [state, due] = ['pending', r.ended_at];
  else if (r.next.state === 'pending' && message.enabled !== 1) state = 'failed';
  else if (r.next.state === 'pending') due = new Date(ended + r.next.delay_s * 1000).toISOString();
  const step = message.redeliver !== 1 && r.next.state === 'pending' && r.next.step ? 1 : 0;
  const updated = c.one<{ attempt_count: number }>(
    `UPDATE webhook_messages SET state = ?, next_attempt_at = ?, finished_at = ?, schedule_step = schedule_step + ?,
       attempt_count = attempt_count + 1, lease_until = NULL, lease_owner = NULL
     WHERE message_id = ? RETURNING attempt_count`,
    state,
    due,
    state === 'pending' ? null : r.ended_at,
    step,
    r.message_id,
  );
  c.run(
    'INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)',
    r.message_id,
    updated!.attempt_count,
    r.attempt.at,
    r.attempt.status_code,
    r.attempt.error,
    r.attempt.duration_ms,
  );
}

/** An endpoint's messages, newest first, each with its attempts. */
export async function listDeliveries(
  c: SqliteContext,
  webhookId: string,
  limit: number,
  before: number | null,
): Promise<Page<DeliveryRecord>> {
  return c.db.transaction(() => {
    const rows = c.all<Row>(
      'SELECT * FROM webhook_messages WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      webhookId,
      before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    );
    const shown = rows.slice(0, limit);
    const attempts = c.all<Row>(
      `SELECT * FROM webhook_attempts WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, n`,
      JSON.stringify(shown.map((r) => r.message_id)),
    );
    return page(deliveriesOf(rows, attempts), limit, (d) => String(d.seq));
  })();
}

/**
 * Makes a message pending again, due now, and marks the redelivery asked for: an attempt under way then
 * ends with the message due again rather than overwriting the request, and a disabled endpoint's claim
 * takes it. False when the endpoint has no such message.
 */
export function redeliver(c: SqliteContext, webhookId: string, messageId: string, now: string): Promise<boolean> {
  return c.tx(
    () =>
      c.run(
        `UPDATE webhook_messages SET state = 'pending', redeliver = 1, next_attempt_at = ?, finished_at = NULL
          WHERE webhook_id = ? AND message_id = ?`,
        now,
        webhookId,
        messageId,
      ) > 0,
  );
}

export async function pendingCount(c: SqliteContext): Promise<number> {
  return c.one<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_messages WHERE state = 'pending'`)!.n;
}
