/**
 * Webhook delivery as a sender of the outbox worker: it claims due messages (at most `perGroup` in
 * flight to one endpoint from this instance), reads each claim's endpoints afresh (a rotation or a
 * change of URL applies to the next claim), signs and posts each message, and records the attempts;
 * its purge is the outbox's upkeep: it fails what disabled endpoints left pending, deletes what deleted
 * endpoints left, and deletes delivered and failed messages past WEBHOOK_RETENTION_DAYS, a bounded
 * batch per step.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Room, Sender } from '../outbox/sender.ts';
import type { Store } from '../store/store.ts';
import type { AttemptResult, ClaimedMessage, WebhookRecord } from '../store/webhook-records.ts';
import { attemptResult } from './attempt.ts';
import { Transport } from './deliver.ts';
import { sendSigned } from './send.ts';

/** A lease outlives the attempt's timeout by this much: a message cut off by a crash is tried again after it. */
const LEASE_MARGIN_MS = 20_000;
const DAY_S = 24 * 60 * 60;
/** Messages per part of an upkeep step: a few milliseconds of work for the store. */
export const UPKEEP_BATCH = 2000;

export interface WebhookSenderOptions {
  store: Store;
  keyEncryptionKey: Buffer;
  settings: Config['webhooks'];
  clock: Clock;
  log: FastifyBaseLogger;
  /** Counts attempts by result (`delivered`, `failed`). */
  onAttempt?: (delivered: boolean) => void;
}

/** A claimed message and its endpoint as the claim read it (null: deleted meanwhile). */
export interface WebhookItem {
  message: ClaimedMessage;
  endpoint: Promise<WebhookRecord | null>;
}

export class WebhookSender implements Sender<WebhookItem, AttemptResult> {
  readonly name = 'webhook delivery';
  private readonly transport: Transport;

  constructor(private readonly o: WebhookSenderOptions) {
    this.transport = new Transport(o.settings.allowPrivate);
  }

  async claim(room: Room): Promise<WebhookItem[]> {
    const claimed = await this.o.store.webhooks.claimWebhookMessages({
      now: this.o.clock.now().toISOString(),
      leaseSeconds: this.o.settings.timeoutSeconds + LEASE_MARGIN_MS / 1000,
      limit: room.limit,
      perEndpoint: room.perGroup,
      limits: room.groups.map(({ group, free }) => ({ webhook_id: group, free })),
    });
    const endpoints = new Map<string, Promise<WebhookRecord | null>>();
    return claimed.map((message) => {
      let endpoint = endpoints.get(message.webhook_id);
      if (endpoint === undefined) {
        endpoint = this.o.store.webhooks.getWebhook(message.webhook_id).catch(() => null);
        endpoints.set(message.webhook_id, endpoint);
      }
      return { message, endpoint };
    });
  }

  group(item: WebhookItem): string {
    return item.message.webhook_id;
  }

  async attempt({ message, endpoint: read }: WebhookItem, claimedAt: number): Promise<AttemptResult | null> {
    const endpoint = await read;
    if (endpoint === null) return null; // deleted meanwhile: the upkeep deletes its messages
    // An attempt must end inside its lease: one that could not start in time is left for the next claim.
    if (performance.now() - claimedAt > LEASE_MARGIN_MS / 2) return null;
    const started = this.o.clock.now();
    const outcome = await sendSigned(this.transport, endpoint, message, started, this.o);
    const delivered = outcome.status_code !== null && outcome.status_code >= 200 && outcome.status_code < 300;
    this.o.onAttempt?.(delivered);
    const times = { started, ended: this.o.clock.now() };
    return attemptResult(message, times, outcome, delivered, this.o.settings.retrySchedule);
  }

  record(results: AttemptResult[]): Promise<void> {
    return this.o.store.webhooks.finishWebhookAttempts(results);
  }

  async purge(): Promise<boolean> {
    const done = await this.o.store.webhooks.upkeepWebhookOutbox({
      now: this.o.clock.now().toISOString(),
      retentionSeconds: this.o.settings.retentionDays * DAY_S,
      batch: UPKEEP_BATCH,
    });
    return Math.max(done.failed, done.purged, done.expired) >= UPKEEP_BATCH;
  }

  /** Closes the connections kept to receivers (after the worker stopped). */
  close(): void {
    this.transport.close();
  }
}
