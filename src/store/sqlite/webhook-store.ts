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
import { SqliteContext } from './context.ts';
import * as outbox from './outbox.ts';
import * as outboxDelivery from './outbox-delivery.ts';
import * as outboxUpkeep from './outbox-upkeep.ts';
import * as webhooks from './webhooks.ts';
import type { WebhookStore } from '../webhook-store.ts';

/** Webhook endpoints and their outbox. (Sqlite: see ../webhook-store.ts.) */
export class SqliteWebhookStore implements WebhookStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  createWebhook(webhook: WebhookRecord): Promise<void> {
    return webhooks.createWebhook(this.b.ctx, webhook);
  }

  getWebhook(webhookId: string): Promise<WebhookRecord | null> {
    return webhooks.getWebhook(this.b.ctx, webhookId);
  }

  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>> {
    return webhooks.listWebhooks(this.b.ctx, limit, after);
  }

  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
    return webhooks.updateWebhook(this.b.ctx, webhookId, change);
  }

  deleteWebhook(webhookId: string): Promise<boolean> {
    return webhooks.deleteWebhook(this.b.ctx, webhookId);
  }

  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string> {
    return outbox.enqueueTo(this.b.ctx, webhookId, message);
  }

  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]> {
    return outboxDelivery.claim(this.b.ctx, request);
  }

  finishWebhookAttempts(results: AttemptResult[]): Promise<void> {
    return outboxDelivery.finish(this.b.ctx, results);
  }

  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>> {
    return outboxDelivery.listDeliveries(this.b.ctx, webhookId, limit, before);
  }

  redeliverWebhookMessage(webhookId: string, messageId: string, now: string): Promise<boolean> {
    return outboxDelivery.redeliver(this.b.ctx, webhookId, messageId, now);
  }

  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone> {
    return outboxUpkeep.upkeep(this.b.ctx, request);
  }

  countPendingWebhookMessages(): Promise<number> {
    return outboxDelivery.pendingCount(this.b.ctx);
  }
}
