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
} from './webhook-records.ts';
import type { Page } from './records.ts';

/** Webhook endpoints and their outbox. Every method is one transaction; each says what it guarantees. */
export interface WebhookStore {
  /** Stores a webhook endpoint and, while it is enabled, its subscriptions. */
  createWebhook(webhook: WebhookRecord): Promise<void>;
  getWebhook(webhookId: string): Promise<WebhookRecord | null>;
  /** Endpoints in webhook_id order, a page at a time. */
  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>>;
  /**
   * Changes an endpoint; null when there is none. Touches the endpoint's row and subscriptions only
   * (disabling it stops new messages at once; the upkeep fails its pending ones).
   */
  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null>;
  /** Deletes an endpoint and its subscriptions (the upkeep deletes its messages and their attempts). */
  deleteWebhook(webhookId: string): Promise<boolean>;
  /** Writes one message for one endpoint (a test message); its message_id. */
  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string>;
  /** Takes due messages under a lease (see ClaimRequest). */
  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]>;
  /** Records the ends of attempts, in one transaction. */
  finishWebhookAttempts(results: AttemptResult[]): Promise<void>;
  /** An endpoint's messages with their attempts, newest first (cursor: the last seq seen). */
  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>>;
  /**
   * Makes a message of the endpoint pending again, due now (`now` on SQLite, the database's clock on
   * PostgreSQL), even while an attempt of it is under way; false when there is no such message.
   */
  redeliverWebhookMessage(webhookId: string, messageId: string, now: string): Promise<boolean>;
  /**
   * One bounded step of the outbox's upkeep, each part a short transaction of its own: fails up to
   * `batch` pending messages of a disabled endpoint, deletes up to `batch` messages of deleted endpoints
   * and up to `batch` delivered or failed ones past the retention (with their attempts).
   */
  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone>;
  /** How many messages wait for delivery (the gauge). */
  countPendingWebhookMessages(): Promise<number>;
}
