import type {
  AttemptResult,
  ClaimedMessage,
  ClaimRequest,
  DeliveryRecord,
  OutboxMessage,
  UpkeepDone,
  UpkeepRequest,
  WebhookChange,
  WebhookRecord,
} from '../webhook-records.ts';
import type { Page } from '../store.ts';
import type { Tx } from './queries.ts';
import * as outbox from './outbox.ts';
import * as outboxDelivery from './outbox-delivery.ts';
import * as outboxUpkeep from './outbox-upkeep.ts';
import * as webhooks from './webhooks.ts';
import type pg from 'pg';
import type { WebhookStore } from '../webhook-store.ts';

/** Webhook endpoints and their outbox. (PostgreSQL: see ../webhook-store.ts.) */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  createWebhook(webhook: WebhookRecord): Promise<void> {
    return webhooks.createWebhook(this.b.tx, webhook);
  }

  getWebhook(webhookId: string): Promise<WebhookRecord | null> {
    return webhooks.getWebhook(this.b.pool, webhookId);
  }

  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>> {
    return webhooks.listWebhooks(this.b.pool, limit, after);
  }

  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
    return webhooks.updateWebhook(this.b.tx, webhookId, change);
  }

  deleteWebhook(webhookId: string): Promise<boolean> {
    return webhooks.deleteWebhook(this.b.tx, webhookId);
  }

  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string> {
    return outbox.enqueueTo(this.b.pool, webhookId, message);
  }

  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]> {
    return outboxDelivery.claim(this.b.pool, request);
  }

  finishWebhookAttempts(results: AttemptResult[]): Promise<void> {
    return outboxDelivery.finish(this.b.tx, results);
  }

  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>> {
    return outboxDelivery.listDeliveries(this.b.tx, webhookId, limit, before);
  }

  redeliverWebhookMessage(webhookId: string, messageId: string): Promise<boolean> {
    return outboxDelivery.redeliver(this.b.pool, webhookId, messageId);
  }

  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone> {
    return outboxUpkeep.upkeep(this.b.tx, request);
  }

  countPendingWebhookMessages(): Promise<number> {
    return outboxDelivery.pendingCount(this.b.pool);
  }
}
