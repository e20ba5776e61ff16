/**
 * Webhook endpoints on SQLite: their rows and the subscription rows a change's transaction reads.
 * Every change of an endpoint touches its row and its few subscription rows, never its messages: a
 * disabled or deleted endpoint's backlog is failed or deleted by the outbox's upkeep, in batches.
 */
import { page, type Row } from '../rows.ts';
import type { Page } from '../store.ts';
import { subscriptionRows, toWebhook, type WebhookChange, type WebhookRecord } from '../webhook-records.ts';
import type { SqliteContext } from './context.ts';

const COLUMNS = `webhook_id, url, event_types, eid, description, enabled, secret_enc, previous_secret_enc,
  previous_secret_until, created_at, failing_since, disabled_reason`;

function values(w: WebhookRecord): unknown[] {
  return [
    w.webhook_id,
    w.url,
    JSON.stringify(w.event_types),
    w.eid,
    w.description,
    w.enabled ? 1 : 0,
    w.secret_enc,
    w.previous_secret_enc,
    w.previous_secret_until,
    w.created_at,
    w.failing_since,
    w.disabled_reason,
  ];
}

/** Rewrites the endpoint's subscription rows from its record (none while it is disabled). */
function subscribe(c: SqliteContext, webhook: WebhookRecord): void {
  c.run('DELETE FROM webhook_subscriptions WHERE webhook_id = ?', webhook.webhook_id);
  for (const row of subscriptionRows(webhook)) {
    c.run(
      'INSERT INTO webhook_subscriptions (type, eid_key, webhook_id) VALUES (?, ?, ?)',
      row.type,
      row.eid_key,
      row.webhook_id,
    );
  }
  c.subscribers.changed();
}

export function createWebhook(c: SqliteContext, webhook: WebhookRecord): Promise<void> {
  return c.tx(() => {
    c.run(`INSERT INTO webhooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ...values(webhook));
    subscribe(c, webhook);
  });
}

export async function getWebhook(c: SqliteContext, webhookId: string): Promise<WebhookRecord | null> {
  const row = c.one<Row>('SELECT * FROM webhooks WHERE webhook_id = ?', webhookId);
  return row ? toWebhook(row) : null;
}

export async function listWebhooks(
  c: SqliteContext,
  limit: number,
  after: string | null,
): Promise<Page<WebhookRecord>> {
  const rows = c.all<Row>(
    'SELECT * FROM webhooks WHERE webhook_id > ? ORDER BY webhook_id LIMIT ?',
    after ?? '',
    limit + 1,
  );
  return page(rows.map(toWebhook), limit, (w) => w.webhook_id);
}

/**
 * Changes an endpoint. Disabling it stops new messages at once (its subscriptions go); its pending
 * messages are failed by the upkeep. Enabling it again clears its failure run.
 */
export function updateWebhook(
  c: SqliteContext,
  webhookId: string,
  change: WebhookChange,
): Promise<WebhookRecord | null> {
  return c.tx(() => {
    const row = c.one<Row>('SELECT * FROM webhooks WHERE webhook_id = ?', webhookId);
    if (!row) return null;
    const before = toWebhook(row);
    const after: WebhookRecord = { ...before, ...change };
    if (after.enabled && !before.enabled) {
      after.failing_since = null;
      after.disabled_reason = null;
    }
    c.run(
      `UPDATE webhooks SET url = ?, event_types = ?, eid = ?, description = ?, enabled = ?, secret_enc = ?,
         previous_secret_enc = ?, previous_secret_until = ?, created_at = ?, failing_since = ?, disabled_reason = ?
       WHERE webhook_id = ?`,
      ...values(after).slice(1),
      webhookId,
    );
    subscribe(c, after);
    return after;
  });
}

/** Disables an enabled endpoint for `reason` inside the caller's transaction: no new messages from now on. */
export function disableWebhook(c: SqliteContext, webhookId: string, reason: string): void {
  if (
    c.run(
      'UPDATE webhooks SET enabled = 0, disabled_reason = ? WHERE webhook_id = ? AND enabled = 1',
      reason,
      webhookId,
    )
  ) {
    c.run('DELETE FROM webhook_subscriptions WHERE webhook_id = ?', webhookId);
    c.subscribers.changed();
  }
}

/** Deletes an endpoint and its subscriptions; its messages and their attempts go with the upkeep. */
export function deleteWebhook(c: SqliteContext, webhookId: string): Promise<boolean> {
  return c.tx(() => {
    const deleted = c.run('DELETE FROM webhooks WHERE webhook_id = ?', webhookId) > 0;
    c.run('DELETE FROM webhook_subscriptions WHERE webhook_id = ?', webhookId);
    c.subscribers.changed();
    return deleted;
  });
}
