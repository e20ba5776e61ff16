/** Webhook endpoints on PostgreSQL: their rows and the subscription rows a change's transaction reads. */
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import { subscriptionRows, toWebhook, type WebhookChange, type WebhookRecord } from '../webhook-records.ts';
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

export function createWebhook(tx: Tx, webhook: WebhookRecord): Promise<void> {
  return tx(async (db) => {
    await db.query(
      `INSERT INTO webhooks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      values(webhook),
    );
    await subscribe(db, webhook);
  });
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
 * Changes an endpoint, its row locked. Disabling it stops new messages at once (its subscriptions go)
 * and fails its pending messages not under way; enabling it again clears its failure run.
 */
export function updateWebhook(tx: Tx, webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
  return tx(async (db) => {
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
    if (!after.enabled && before.enabled) await failPending(db, webhookId);
    return after;
  });
}

/** A disabled endpoint's pending messages become failed (those under way finish their attempt). */
export async function failPending(db: Db, webhookId: string): Promise<void> {
  await db.query(
    `UPDATE webhook_messages SET state = 'failed', next_attempt_at = NULL
      WHERE webhook_id = $1 AND state = 'pending' AND lease_owner IS NULL`,
    [webhookId],
  );
}

/** Deletes an endpoint with its messages and their attempts. */
export function deleteWebhook(tx: Tx, webhookId: string): Promise<boolean> {
  return tx(async (db) => {
    await db.query('DELETE FROM webhook_subscriptions WHERE webhook_id = $1', [webhookId]);
    await db.query(
      'DELETE FROM webhook_attempts WHERE message_id IN (SELECT message_id FROM webhook_messages WHERE webhook_id = $1)',
      [webhookId],
    );
    await db.query('DELETE FROM webhook_messages WHERE webhook_id = $1', [webhookId]);
    const result = await db.query('DELETE FROM webhooks WHERE webhook_id = $1', [webhookId]);
    return (result.rowCount ?? 0) > 0;
  });
}
