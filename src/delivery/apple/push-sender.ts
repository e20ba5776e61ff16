/**
 * Apple pass pushes as a sender of the outbox worker: it claims due pushes (written by the ticket
 * change's own transaction, see the store's migration 27), sends each to APNs, and records how each
 * ended. A push APNs could not take (429, 5xx, no connection) is tried again after the delays of
 * APNS_RETRY_SCHEDULE_S, then failed; 410 Unregistered ends the device's registrations; 400 and 403 are
 * recorded as failed with APNs's reason. Its purge deletes sent and failed pushes past the retention.
 *
 * The outbox's times are the database's (its trigger stamps new pushes), so the sender reads the wall
 * clock, not the app's injected one.
 */
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { EXACT, nextRetry } from '../../outbox/schedule.ts';
import type { Room, Sender } from '../../outbox/sender.ts';
import type { ApplePushResult, ClaimedApplePush, Store } from '../../store/store.ts';
import type { ApnsOutcome } from '../apns.ts';

export interface PushSenderOptions {
  store: Store;
  /** Sends one pass push (the APNs client). */
  send: (pushToken: string, topic: string) => Promise<ApnsOutcome>;
  retrySchedule: readonly number[];
  log: FastifyBaseLogger;
  clock?: Clock;
  /** Days after which sent and failed pushes are deleted. */
  retentionDays?: number;
}

/** A lease outlives a claim's sends by far: pushes cut off by a crash are sent again after it. */
const LEASE_SECONDS = 120;
/** Pushes deleted per purge step. */
const PURGE_BATCH = 1000;

export class ApplePushSender implements Sender<ClaimedApplePush, ApplePushResult> {
  readonly name = 'pass pushes';
  private readonly clock: Clock;

  constructor(private readonly o: PushSenderOptions) {
    this.clock = o.clock ?? systemClock;
  }

  claim(room: Room): Promise<ClaimedApplePush[]> {
    return this.o.store.applePasses.claimApplePushes({
      now: this.clock.now().toISOString(),
      leaseSeconds: LEASE_SECONDS,
      limit: room.limit,
    });
  }

  async attempt(push: ClaimedApplePush): Promise<ApplePushResult> {
    const outcome = await this.o.send(push.push_token, push.pass_type_id);
    const now = this.clock.now();
    const base = { push_id: push.push_id, lease_owner: push.lease_owner, at: now.toISOString() };
    if (outcome.kind === 'sent') return { ...base, outcome: 'sent', error: null, next_attempt_at: null };
    this.o.log.info(
      { push_id: push.push_id, outcome: outcome.kind, reason: outcome.reason },
      'pass push not delivered',
    );
    if (outcome.kind !== 'retry')
      return { ...base, outcome: outcome.kind, error: outcome.reason, next_attempt_at: null };
    const retry = nextRetry(this.o.retrySchedule, push.attempts, 0, null, EXACT);
    if (retry === null)
      return { ...base, outcome: 'failed', error: `${outcome.reason} (no retries left)`, next_attempt_at: null };
    const next = new Date(now.getTime() + retry.delay_s * 1000).toISOString();
    return { ...base, outcome: 'retry', error: outcome.reason, next_attempt_at: next };
  }

  record(results: ApplePushResult[]): Promise<void> {
    return this.o.store.applePasses.finishApplePushes(results);
  }

  /** Deletes a batch of ended pushes past the retention. */
  async purge(): Promise<boolean> {
    const before = new Date(this.clock.now().getTime() - (this.o.retentionDays ?? 7) * 86_400_000).toISOString();
    return (await this.o.store.applePasses.purgeApplePushes(before, PURGE_BATCH)) === PURGE_BATCH;
  }
}
