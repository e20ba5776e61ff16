/**
 * Webhook endpoints on PostgreSQL: their rows and the subscription rows a change's transaction reads.
 * Every change of an endpoint touches its row and its few subscription rows, never its messages: a
 * disabled or deleted endpoint's backlog is failed or deleted by the outbox's upkeep, in batches.
 */
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import {
  isRetriable,
  subscriptionRows,
  toWebhook,
  type WebhookChange,
  type WebhookRecord,
} from '../webhook-records.ts';
import { all, type Db, one, type Tx } from './queries.ts';

const COLUMNS = `webhook_id, url, event_types, eid, description, enabled, secret_enc, previous_secret_enc,
  previous_secret_until, created_at, failing_since, disabled_reason`;

function values(w: WebhookRecord): unknown[] {
  return [
    w.webhook_id,
    w.url,
    JSON.stringify(w.event_types),
    w.eid,
    w.description,
    w.enabled,
    w.secret_enc,
    w.previous_secret_enc,
    w.previous_secret_until,
    w.created_at,
    w.failing_since,
    w.disabled_reason,
  ];
}

/** Rewrites the endpoint's subscription rows from its record (none while it is disabled). */
async function subscribe(db: Db, webhook: WebhookRecord): Promise<void> {
  await db.query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [webhook.webhook_id]);
  const rows = subscriptionRows(webhook);
  if (rows.length === 0) return;
  await db.query(
    'INSERT INTO webhook_subscriptions (type, eid_key, webhook_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])',
    [rows.map((r) => r.type), rows.map((r) => r.eid_key), rows.map((r) => r.webhook_id)],
  );
}

const TRIES = 4;

/**
 * Runs a transaction again, a few times, when PostgreSQL ended it in a deadlock or a serialization
 * failure (another transaction held what it needed). Past the tries the error goes on: the admin API
 * answers it 503 with Retry-After, the worker keeps its results for the next flush.
 */
export async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= TRIES || !isRetriable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

export function createWebhook(tx: Tx, webhook: WebhookRecord): Promise<void> {
  return retried(() =>
    tx(async (db) => {
      await db.query(
        `INSERT INTO webhooks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        values(webhook),
      );
      await subscribe(db, webhook);
    }),
  );
}

export async function getWebhook(db: Db, webhookId: string): Promise<WebhookRecord | null> {
  const row = await one<Row>(db, 'SELECT * FROM webhooks WHERE webhook_id = $1', [webhookId]);
  return row ? toWebhook(row) : null;
}

export async function listWebhooks(db: Db, limit: number, after: string | null): Promise<Page<WebhookRecord>> {
  const rows = await all<Row>(db, 'SELECT * FROM webhooks WHERE webhook_id > $1 ORDER BY webhook_id LIMIT $2', [
    after ?? '',
    limit + 1,
  ]);
  return page(rows.map(toWebhook), limit, (w) => w.webhook_id);
}

/**
 * Changes an endpoint, its row locked first (every writer of an endpoint locks its row before its
 * subscriptions). Disabling it stops new messages at once (its subscriptions go); its pending messages
 * are failed by the upkeep. Enabling it again clears its failure run.
 */
export function updateWebhook(tx: Tx, webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
  return retried(() =>
    tx(async (db) => {
      const row = await one<Row>(db, 'SELECT * FROM webhooks WHERE webhook_id = $1 FOR UPDATE', [webhookId]);
      if (!row) return null;
      const before = toWebhook(row);
      const after: WebhookRecord = { ...before, ...change };
      if (after.enabled && !before.enabled) {
        after.failing_since = null;
        after.disabled_reason = null;
      }
      await db.query(
        `UPDATE webhooks SET url = $2, event_types = $3, eid = $4, description = $5, enabled = $6, secret_enc = $7,
           previous_secret_enc = $8, previous_secret_until = $9, created_at = $10, failing_since = $11,
           disabled_reason = $12
         WHERE webhook_id = $1`,
        values(after),
      );
      await subscribe(db, after);
      return after;
    }),
  );
}

/** Disables an enabled endpoint for `reason` inside the caller's transaction: no new messages from now on. */
export async function disableWebhook(db: Db, webhookId: string, reason: string): Promise<void> {
  const changed = await db.query(
    'UPDATE webhooks SET enabled = FALSE, disabled_reason = $1 WHERE webhook_id = $2 AND enabled',
    [reason, webhookId],
  );
  if ((changed.rowCount ?? 0) > 0)
    await db.query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [webhookId]);
}

/** Deletes an endpoint and its subscriptions; its messages and their attempts go with the upkeep. */
export function deleteWebhook(tx: Tx, webhookId: string): Promise<boolean> {
  return retried(() =>
    tx(async (db) => {
      const result = await db.query('DELETE FROM webhooks WHERE webhook_id = $1', [webhookId]);
      await db.query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [webhookId]);
      return (result.rowCount ?? 0) > 0;
    }),
  );
}
