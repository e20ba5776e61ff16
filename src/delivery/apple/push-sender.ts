/**
 * The pass-push worker, one per instance, beside the request path: it claims due pushes from the
 * outbox (written by the ticket change's own transaction, see the store's migration 27), each under a
 * lease of its own, so that several instances send each push once; sends them to APNs a few at a time;
 * and records the ends of the attempts in one transaction per claim. A push APNs could not take (429,
 * 5xx, no connection) is tried again after the delays of APNS_RETRY_SCHEDULE_S, then failed; 410
 * Unregistered ends the device's registrations; 400 and 403 are recorded as failed with APNs's reason.
 *
 * The outbox's times are the database's (its trigger stamps new pushes), so the worker reads the wall
 * clock, not the app's injected one.
 */
import type { FastifyBaseLogger } from 'fastify';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { outsideAudit } from '../../store/audit-context.ts';
import type { ApplePushResult, ClaimedApplePush, Store } from '../../store/store.ts';
import type { ApnsOutcome } from '../apns.ts';

export interface PushWorkerOptions {
  store: Store;
  /** Sends one pass push (the APNs client). */
  send: (pushToken: string, topic: string) => Promise<ApnsOutcome>;
  retrySchedule: number[];
  log: FastifyBaseLogger;
  clock?: Clock;
  /** How often to look for due pushes when none were found (ms). */
  pollMs?: number;
  /** Pushes claimed at once, and sent at once. */
  claimLimit?: number;
  concurrency?: number;
  /** Days after which sent and failed pushes are deleted. */
  retentionDays?: number;
}

/** A lease outlives a claim's sends by far: pushes cut off by a crash are sent again after it. */
const LEASE_SECONDS = 120;
const PURGE_EVERY_MS = 3_600_000;

export class ApplePushWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastPurge = 0;
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly claimLimit: number;
  private readonly concurrency: number;

  constructor(private readonly o: PushWorkerOptions) {
    this.clock = o.clock ?? systemClock;
    this.pollMs = o.pollMs ?? 1_000;
    this.claimLimit = o.claimLimit ?? 100;
    this.concurrency = o.concurrency ?? 10;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking for pushes; the claim under way ends first. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = null));
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let next = this.pollMs;
    try {
      const sent = await outsideAudit(() => this.runOnce());
      if (sent >= this.claimLimit) next = 0;
      await this.purge();
    } catch (error) {
      this.o.log.warn({ err_message: (error as Error).message }, 'pass pushes: the store did not answer; trying again');
      next = Math.max(this.pollMs, 5_000);
    }
    this.schedule(next);
  }

  /** One claim: its pushes sent and their ends recorded; how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = await this.o.store.applePasses.claimApplePushes({
      now: this.clock.now().toISOString(),
      leaseSeconds: LEASE_SECONDS,
      limit: this.claimLimit,
    });
    const results: ApplePushResult[] = [];
    for (let i = 0; i < claimed.length; i += this.concurrency) {
      const batch = claimed.slice(i, i + this.concurrency);
      results.push(...(await Promise.all(batch.map((push) => this.attempt(push)))));
    }
    if (results.length > 0) await this.o.store.applePasses.finishApplePushes(results);
    return claimed.length;
  }

  private async attempt(push: ClaimedApplePush): Promise<ApplePushResult> {
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
    const delay = this.o.retrySchedule[push.attempts];
    if (delay === undefined)
      return { ...base, outcome: 'failed', error: `${outcome.reason} (no retries left)`, next_attempt_at: null };
    const next = new Date(now.getTime() + delay * 1000).toISOString();
    return { ...base, outcome: 'retry', error: outcome.reason, next_attempt_at: next };
  }

  /** Deletes ended pushes past the retention, once an hour, a batch at a time. */
  private async purge(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    const before = new Date(now - (this.o.retentionDays ?? 7) * 86_400_000).toISOString();
    while ((await this.o.store.applePasses.purgeApplePushes(before, 1000)) === 1000 && !this.stopped);
  }
}
