/**
 * The mail worker, one per instance, beside the request path: it claims due deliveries from the mail
 * outbox, each under a lease of its own (no two instances attempt one at the same moment; a result is
 * recorded only under the claim that made it), composes and sends each, and records the ends in
 * batches. At most `concurrency` sends are under way at once (one while scanners keep the instance
 * busy), so a slow SMTP server holds a few sockets, never a check-in. A store that fails is tried
 * again a second later; the results it could not take are kept until it can.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { outsideAudit } from '../store/audit-context.ts';
import type { ClaimedDelivery, DeliveryResult } from '../store/delivery-records.ts';
import type { Store } from '../store/store.ts';
import { nextRetry } from '../webhooks/schedule.ts';
import { type TicketMail, ticketMessage } from './mail-message.ts';
import type { SendOutcome } from './mail-transport.ts';

/** A lease outlives the send's timeout by this much: a delivery cut off by a crash is tried again after it. */
const LEASE_MARGIN_MS = 30_000;
/** Seconds before an email that could not be composed (the store or the PDF failed) is tried again. */
const COMPOSE_RETRY_S = 5;
/** Sends under way while the gates keep the instance busy. */
const BUSY_CONCURRENCY = 1;

/** What a claimed delivery's email is made of, read when it is sent; a reason instead when it cannot be sent. */
export type MailSource = (claimed: ClaimedDelivery) => Promise<TicketMail | { refused: string }>;

export interface MailWorkerOptions {
  store: Store;
  send: (mail: ReturnType<typeof ticketMessage>) => Promise<SendOutcome>;
  compose: MailSource;
  retrySchedule: readonly number[];
  /** How long one send may take (the transport's own bound), in ms; the lease covers it. */
  sendTimeoutMs: number;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Counts attempts by result. */
  onAttempt?: (result: 'sent' | 'temporary' | 'failed') => void;
  pollMs?: number;
  concurrency?: number;
  busy?: () => boolean;
}

export class MailWorker {
  private readonly attempts = new Set<Promise<void>>();
  private results: DeliveryResult[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private claiming = false;
  private again = false;
  private storeFailing = false;
  private stopped = true;
  private readonly pollMs: number;
  private readonly concurrency: number;

  constructor(private readonly o: MailWorkerOptions) {
    this.pollMs = o.pollMs ?? 500;
    this.concurrency = o.concurrency ?? 4;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.wake();
  }

  /** Stops claiming, lets the sends under way end, and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.attempts]);
    await this.flush();
  }

  /** Looks for due deliveries now (or once the claim under way ends). */
  wake(): void {
    // Outside the audit entry of a request that woke it: what the worker writes is no admin's change.
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
        if (this.storeFailing) this.o.log.info('mail delivery: the store answers again; sending');
        this.storeFailing = false;
      })
      .catch((error: unknown) => {
        failed = true;
        if (!this.storeFailing) this.o.log.warn({ err: error }, 'mail delivery: the store cannot be read; retrying');
        this.storeFailing = true;
      })
      .finally(() => {
        this.claiming = false;
        if (this.stopped) return;
        const delay = failed ? Math.max(this.pollMs, 1000) : this.again ? 0 : this.pollMs;
        this.again = false;
        this.timer = setTimeout(() => this.wake(), delay);
      });
  }

  private async claimAndSend(): Promise<void> {
    await this.flush();
    const room = this.o.busy?.() ? BUSY_CONCURRENCY : this.concurrency;
    const limit = room - this.attempts.size;
    // A claim is a write (a commit, synced on SQLite): made for half the slots at once, not for each one
    // that frees, so a fast server costs a commit per few emails rather than one each.
    if (limit <= 0 || (this.attempts.size > 0 && limit < Math.ceil(room / 2))) return;
    const claimed = await this.o.store.deliveries.claimDeliveries({
      now: this.o.clock.now().toISOString(),
      leaseSeconds: (this.o.sendTimeoutMs + LEASE_MARGIN_MS) / 1000,
      limit,
    });
    const claimedAt = performance.now();
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery, claimedAt)
        .catch((error: unknown) =>
          this.o.log.warn({ err: error, tid: delivery.tid }, 'mail delivery: an attempt failed'),
        )
        .finally(() => {
          this.attempts.delete(attempt);
          // A slot came free: look again at once.
          this.wake();
        });
      this.attempts.add(attempt);
    }
  }

  private async attempt(delivery: ClaimedDelivery, claimedAt: number): Promise<void> {
    let mail: Awaited<ReturnType<MailSource>>;
    try {
      mail = await this.o.compose(delivery);
    } catch (error) {
      // The store or the PDF failed, not the mail: tried again shortly.
      this.o.log.warn({ err: error, tid: delivery.tid }, 'mail delivery: the email could not be composed; retrying');
      this.record(delivery, {
        status: 'queued',
        retry_after_s: COMPOSE_RETRY_S,
        error: 'the email could not be composed',
      });
      return;
    }
    // An attempt must end inside its lease: one that could not start in time is left for the next claim.
    if (performance.now() - claimedAt > LEASE_MARGIN_MS / 2) return;
    if ('refused' in mail) {
      this.o.onAttempt?.('failed');
      this.record(delivery, { status: 'failed', error: mail.refused });
      return;
    }
    const outcome = await this.o.send(ticketMessage(mail));
    if (outcome.kind === 'sent') {
      this.o.onAttempt?.('sent');
      this.record(delivery, { status: 'sent' });
      return;
    }
    const retry = outcome.kind === 'temporary' ? nextRetry(this.o.retrySchedule, delivery.attempts, 0, null) : null;
    this.o.onAttempt?.(retry === null ? 'failed' : 'temporary');
    this.o.log.info({ tid: delivery.tid, outcome: outcome.kind, error: outcome.error }, 'mail delivery: not sent');
    if (retry !== null) this.record(delivery, { status: 'queued', retry_after_s: retry.delay_s, error: outcome.error });
    else if (outcome.kind === 'temporary') {
      this.record(delivery, {
        status: 'failed',
        error: `${outcome.error} (gave up after ${delivery.attempts + 1} attempts)`,
      });
    } else this.record(delivery, { status: 'failed', error: outcome.error });
  }

  private record(delivery: ClaimedDelivery, outcome: DeliveryResult['outcome']): void {
    this.results.push({
      tid: delivery.tid,
      lease_token: delivery.lease_token,
      ended_at: this.o.clock.now().toISOString(),
      outcome,
    });
    if (this.results.length >= 100) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), 20);
  }

  /** Records the ends of attempts in one transaction; kept for the next try if the store cannot. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.flushing = this.flushing.then(async () => {
      const batch = this.results;
      if (batch.length === 0) return;
      this.results = [];
      try {
        await this.o.store.deliveries.finishDeliveries(batch);
      } catch (error) {
        if (!this.storeFailing)
          this.o.log.warn({ err: error }, 'mail delivery: recording sends failed; kept to try again');
        this.storeFailing = true;
        this.results = batch.concat(this.results);
        if (!this.stopped) this.flushTimer ??= setTimeout(() => void this.flush(), 1000);
      }
    });
    return this.flushing;
  }
}
