/**
 * The delivery worker, one per instance, beside the request path: it claims due messages from the
 * outbox, each under a lease of its own (no two instances attempt one message at the same moment, and
 * a result is recorded only under the claim that made it), signs and sends each, and records the
 * attempts in batches, before it claims again. At most `perEndpoint` requests are in flight to one
 * endpoint from one instance, so a slow or dead receiver holds a few sockets, never a check-in.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/store.ts';
import { outsideAudit } from '../store/audit-context.ts';
import type { AttemptResult, ClaimedMessage, WebhookRecord } from '../store/webhook-records.ts';
import { type AttemptOutcome, Transport } from './deliver.ts';
import { attemptResult, type AttemptTimes } from './attempt.ts';
import { sendSigned } from './send.ts';

/** A lease outlives the attempt's timeout by this much: a message cut off by a crash is tried again after it. */
const LEASE_MARGIN_MS = 20_000;
/** Slots freed within this many milliseconds share one claim. */
const COALESCE_MS = 5;
/**
 * While the gates keep the instance busy, delivery gives way: at most this many requests in flight per
 * endpoint, claims of at most BUSY_CLAIM, one every BUSY_PACE_MS (about 160 messages a second, a few
 * per cent of a core); the backlog goes out at full speed once the rush eases.
 */
const BUSY_IN_FLIGHT = 4;
const BUSY_CLAIM = 8;
const BUSY_PACE_MS = 50;

export interface WorkerOptions {
  store: Store;
  keyEncryptionKey: Buffer;
  settings: Config['webhooks'];
  clock: Clock;
  log: FastifyBaseLogger;
  /** Counts attempts by result (`delivered`, `failed`). */
  onAttempt?: (delivered: boolean) => void;
  /** How often to look for due messages when nothing is under way (ms). */
  pollMs?: number;
  /** Requests in flight to one endpoint from this instance. */
  perEndpoint?: number;
  /** Messages claimed at once. */
  claimLimit?: number;
  /** Whether scanners' requests keep the instance busy now: delivery then gives way. */
  busy?: () => boolean;
}

export class WebhookWorker {
  private readonly transport: Transport;
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private results: AttemptResult[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private soonTimer: NodeJS.Timeout | null = null;
  private claiming = false;
  private storeFailing = false;
  private again = false;
  /** Whether the last claim found the instance busy with scanners' requests. */
  private yielding = false;
  private stopped = true;
  private readonly pollMs: number;
  private readonly perEndpoint: number;
  private readonly claimLimit: number;

  constructor(private readonly o: WorkerOptions) {
    this.transport = new Transport(o.settings.allowPrivate);
    this.pollMs = o.pollMs ?? 250;
    this.perEndpoint = o.perEndpoint ?? 32;
    this.claimLimit = o.claimLimit ?? 200;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.wake();
  }

  /** Stops claiming, lets the attempts under way end, and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.timer = null;
    this.soonTimer = null;
    await Promise.allSettled([...this.attempts]);
    await this.flush();
    this.transport.close();
  }

  /** Looks for due messages now (or as soon as the claim under way ends). */
  wake(): void {
    // Outside the audit entry of a request that woke it: nothing the worker writes is that admin's change.
    outsideAudit(() => this.look());
  }

  private look(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.claiming = true;
    let failed = false;
    void this.claimAndSend()
      .then(() => {
        if (this.storeFailing) this.o.log.info('webhook delivery: the store answers again; delivering');
        this.storeFailing = false;
      })
      .catch((error: unknown) => {
        failed = true;
        // Said once per outage, not at every look (the store's own faults are answered elsewhere).
        if (!this.storeFailing) this.o.log.warn({ err: error }, 'webhook delivery: the store cannot be read; retrying');
        this.storeFailing = true;
      })
      .finally(() => {
        this.claiming = false;
        if (this.stopped) return;
        if (this.again && !failed) {
          this.again = false;
          if (this.yielding) this.timer = setTimeout(() => this.wake(), BUSY_PACE_MS);
          else this.wake();
        } else this.timer = setTimeout(() => this.wake(), failed ? Math.max(this.pollMs, 1000) : this.pollMs);
      });
  }

  /** Wakes shortly: the claim then takes every slot freed meanwhile. */
  private soon(): void {
    if (this.stopped || this.soonTimer !== null) return;
    this.soonTimer = setTimeout(
      () => {
        this.soonTimer = null;
        this.wake();
      },
      this.yielding ? BUSY_PACE_MS : COALESCE_MS,
    );
  }

  private async claimAndSend(): Promise<void> {
    // Results still to record go first: a claim never meets a message whose attempt this worker ended.
    await this.flush();
    const now = this.o.clock.now();
    this.yielding = this.o.busy?.() ?? false;
    const perEndpoint = this.yielding ? Math.min(BUSY_IN_FLIGHT, this.perEndpoint) : this.perEndpoint;
    const claimLimit = this.yielding ? Math.min(BUSY_CLAIM, this.claimLimit) : this.claimLimit;
    const limits = [...this.inFlight].map(([webhook_id, n]) => ({
      webhook_id,
      free: Math.max(0, perEndpoint - n),
    }));
    const claimed = await this.o.store.webhooks.claimWebhookMessages({
      now: now.toISOString(),
      leaseSeconds: this.o.settings.timeoutSeconds + LEASE_MARGIN_MS / 1000,
      limit: claimLimit,
      perEndpoint,
      limits,
    });
    const claimedAt = performance.now();
    // Each claim reads its endpoints afresh: a rotation or a change of URL applies to the next claim.
    const endpoints = new Map<string, Promise<WebhookRecord | null>>();
    for (const message of claimed) {
      if (!endpoints.has(message.webhook_id)) {
        endpoints.set(
          message.webhook_id,
          this.o.store.webhooks.getWebhook(message.webhook_id).catch(() => null),
        );
      }
      this.inFlight.set(message.webhook_id, (this.inFlight.get(message.webhook_id) ?? 0) + 1);
      const attempt = this.attempt(message, endpoints.get(message.webhook_id)!, claimedAt).finally(() => {
        this.attempts.delete(attempt);
        const left = (this.inFlight.get(message.webhook_id) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(message.webhook_id);
        else this.inFlight.set(message.webhook_id, left);
        // A slot came free: more of that endpoint's messages may be due. Slots freed within a few
        // milliseconds of each other share one claim.
        this.soon();
      });
      this.attempts.add(attempt);
    }
    // A full claim means more are due at once.
    if (claimed.length === claimLimit) this.again = true;
  }

  private async attempt(
    message: ClaimedMessage,
    read: Promise<WebhookRecord | null>,
    claimedAt: number,
  ): Promise<void> {
    const endpoint = await read;
    if (endpoint === null) return; // deleted meanwhile: the upkeep deletes its messages
    // An attempt must end inside its lease: one that could not start in time is left for the next claim.
    if (performance.now() - claimedAt > LEASE_MARGIN_MS / 2) return;
    const startedAt = this.o.clock.now();
    const outcome = await sendSigned(this.transport, endpoint, message, startedAt, this.o);
    const delivered = outcome.status_code !== null && outcome.status_code >= 200 && outcome.status_code < 300;
    this.o.onAttempt?.(delivered);
    this.record(message, { started: startedAt, ended: this.o.clock.now() }, outcome, delivered);
  }

  private record(message: ClaimedMessage, times: AttemptTimes, outcome: AttemptOutcome, delivered: boolean): void {
    this.results.push(attemptResult(message, times, outcome, delivered, this.o.settings.retrySchedule));
    if (this.results.length >= 100) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), 20);
  }

  /** Records the attempts that ended, in one transaction; kept for the next try if the store cannot. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = this.flushing.then(async () => {
      const batch = this.results;
      if (batch.length === 0) return;
      this.results = [];
      try {
        await this.o.store.webhooks.finishWebhookAttempts(batch);
      } catch (error) {
        if (!this.storeFailing) {
          this.o.log.warn({ err: error }, 'webhook delivery: recording attempts failed; kept to try again');
        }
        this.storeFailing = true;
        this.results = batch.concat(this.results);
        if (!this.stopped) this.flushTimer ??= setTimeout(() => void this.flush(), 1000);
      }
    });
    return this.flushing;
  }
}
