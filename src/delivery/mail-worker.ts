/**
 * Mail as a sender of the outbox worker: it claims due deliveries, composes and sends each, and
 * records the ends (sent; queued again after the retry schedule's next delay on a temporary failure;
 * failed on a permanent one or past the last delay). The worker's loop attempts at most `concurrency`
 * at once (one while scanners keep the instance busy), so a slow SMTP server holds a few sockets, never
 * a check-in.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { nextRetry } from '../outbox/schedule.ts';
import type { Room, Sender } from '../outbox/sender.ts';
import type { ClaimedDelivery, DeliveryResult } from '../store/delivery-records.ts';
import type { Store } from '../store/store.ts';
import type { TicketMail } from './mail-message.ts';
import type { SendOutcome } from './mail-transport.ts';

/** A lease outlives the send's timeout by this much: a delivery cut off by a crash is tried again after it. */
const LEASE_MARGIN_MS = 30_000;
/** Seconds before an email that could not be composed (the store, the PDF or the thread failed) is tried again. */
const COMPOSE_RETRY_S = 5;

/** What a claimed delivery's email is made of, read when it is sent; a reason instead when it cannot be sent. */
export type MailSource = (claimed: ClaimedDelivery) => Promise<TicketMail | { refused: string }>;

export interface MailSenderOptions {
  store: Store;
  /**
   * Builds and sends one email, never once `startBy` (epoch ms) has passed: its outcome, or null when it
   * was not sent for that; rejects when it could not be built (nothing sent).
   */
  send: (mail: TicketMail, startBy: number) => Promise<SendOutcome | null>;
  compose: MailSource;
  retrySchedule: readonly number[];
  /** How long one send may take (the transport's own bound), in ms; the lease covers it. */
  sendTimeoutMs: number;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Counts attempts by result. */
  onAttempt?: (result: 'sent' | 'temporary' | 'failed') => void;
}

export class MailSender implements Sender<ClaimedDelivery, DeliveryResult> {
  readonly name = 'mail delivery';

  constructor(private readonly o: MailSenderOptions) {}

  claim(room: Room): Promise<ClaimedDelivery[]> {
    return this.o.store.deliveries.claimDeliveries({
      now: this.o.clock.now().toISOString(),
      leaseSeconds: (this.o.sendTimeoutMs + LEASE_MARGIN_MS) / 1000,
      limit: room.limit,
    });
  }

  async attempt(delivery: ClaimedDelivery, claimedAt: number): Promise<DeliveryResult | null> {
    let mail: Awaited<ReturnType<MailSource>>;
    try {
      mail = await this.o.compose(delivery);
    } catch (error) {
      return this.notComposed(delivery, error);
    }
    // An attempt must end inside its lease: one that could not start in time is left for the next claim
    // (the thread checks again once the email is built, before sending it).
    const startBy = Date.now() + LEASE_MARGIN_MS / 2 - (performance.now() - claimedAt);
    if (startBy < Date.now()) return null;
    if ('refused' in mail) {
      this.o.onAttempt?.('failed');
      return this.end(delivery, { status: 'failed', error: mail.refused });
    }
    let outcome: SendOutcome | null;
    try {
      outcome = await this.o.send(mail, startBy);
    } catch (error) {
      return this.notComposed(delivery, error);
    }
    if (outcome === null) return null;
    if (outcome.kind === 'sent') {
      this.o.onAttempt?.('sent');
      return this.end(delivery, { status: 'sent' });
    }
    const retry = outcome.kind === 'temporary' ? nextRetry(this.o.retrySchedule, delivery.attempts, 0, null) : null;
    this.o.onAttempt?.(retry === null ? 'failed' : 'temporary');
    this.o.log.info({ tid: delivery.tid, outcome: outcome.kind, error: outcome.error }, 'mail delivery: not sent');
    if (retry !== null)
      return this.end(delivery, { status: 'queued', retry_after_s: retry.delay_s, error: outcome.error });
    if (outcome.kind === 'temporary') {
      const error = `${outcome.error} (gave up after ${delivery.attempts + 1} attempts)`;
      return this.end(delivery, { status: 'failed', error });
    }
    return this.end(delivery, { status: 'failed', error: outcome.error });
  }

  record(results: DeliveryResult[]): Promise<void> {
    return this.o.store.deliveries.finishDeliveries(results);
  }

  /** The store, the PDF or the thread failed, not the mail: tried again shortly. */
  private notComposed(delivery: ClaimedDelivery, error: unknown): DeliveryResult {
    this.o.log.warn({ err: error, tid: delivery.tid }, 'mail delivery: the email could not be composed; retrying');
    return this.end(delivery, {
      status: 'queued',
      retry_after_s: COMPOSE_RETRY_S,
      error: 'the email could not be composed',
    });
  }

  private end(delivery: ClaimedDelivery, outcome: DeliveryResult['outcome']): DeliveryResult {
    return {
      tid: delivery.tid,
      lease_token: delivery.lease_token,
      ended_at: this.o.clock.now().toISOString(),
      outcome,
    };
  }
}
