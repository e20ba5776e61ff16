/**
 * Sends the wallet outbox's Google pushes: claims due pushes under a lease, patches each ticket's
 * object as the ticket stands now, and records how each ended (a retry after the schedule's next delay).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/store.ts';
import type { ClaimedWalletPush, WalletPushResult } from '../store/wallet-push-records.ts';
import { nextRetry } from '../webhooks/schedule.ts';
import { type GoogleWalletApi, type PatchOutcome, reissuedPatch, revokedPatch } from './google-wallet-api.ts';

/** Delays in seconds after each failed attempt (about two days in all); then the push has failed. */
export const GOOGLE_PUSH_RETRY_SCHEDULE_S = [10, 60, 300, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400];

export interface WalletPushWorkerOptions {
  store: Store;
  api: GoogleWalletApi;
  clock: Clock;
  log: FastifyBaseLogger;
  /** How often to look for due pushes (default 1 s). */
  pollMs?: number;
  /** A claim's lease: longer than an attempt can take (token and patch, each bounded by the API timeout). */
  leaseSeconds?: number;
  /** Pushes per claim, sent at once (default 16). */
  batch?: number;
  schedule?: readonly number[];
}

export class GooglePushWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly o: WalletPushWorkerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking; the attempts under way end and are recorded first. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: claims what is due, sends it, records the ends; answers how many pushes it took. */
  async runOnce(): Promise<number> {
    const now = this.o.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.o.leaseSeconds ?? 60) * 1000).toISOString();
    const claimed = await this.o.store.walletPushes.claim('google', now.toISOString(), leaseUntil, this.o.batch ?? 16);
    if (claimed.length === 0) return 0;
    const results = await Promise.all(claimed.map((push) => this.attempt(push)));
    await this.o.store.walletPushes.record(results);
    return claimed.length;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.round().finally(() => (this.running = null));
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    let full = false;
    try {
      full = (await this.runOnce()) >= (this.o.batch ?? 16);
    } catch (error) {
      // The store is away: the pushes stay in it, leased or not, and are taken again once it answers.
      this.o.log.warn({ err: { message: (error as Error).message } }, 'google wallet pushes: store unavailable');
    }
    this.schedule(full ? 0 : (this.o.pollMs ?? 1000));
  }

  private async attempt(push: ClaimedWalletPush): Promise<WalletPushResult> {
    const patch = push.revoked_at !== null ? revokedPatch() : reissuedPatch(push.ticket_token);
    const outcome = await this.o.api.patchObject(push.tid, patch);
    const end = this.o.clock.now();
    const result = this.resultOf(push, outcome, end);
    const line = { tid: push.tid, kind: push.kind, outcome: result.outcome, status: result.status };
    if (result.outcome === 'failed') this.o.log.warn({ ...line, error: result.error }, 'google wallet push failed');
    else this.o.log.info(line, 'google wallet push');
    return result;
  }

  private resultOf(push: ClaimedWalletPush, outcome: PatchOutcome, end: Date): WalletPushResult {
    const base = { push_id: push.push_id, lease: push.lease, at: end.toISOString(), status: outcome.status };
    if (outcome.kind === 'done') return { ...base, outcome: 'done', next_attempt_at: null, error: null };
    if (outcome.kind === 'failed') return { ...base, outcome: 'failed', next_attempt_at: null, error: outcome.error };
    const schedule = this.o.schedule ?? GOOGLE_PUSH_RETRY_SCHEDULE_S;
    const retry = nextRetry(schedule, push.attempts, push.attempts, outcome.retryAfterS);
    if (retry === null) return { ...base, outcome: 'failed', next_attempt_at: null, error: outcome.error };
    const due = new Date(end.getTime() + retry.delay_s * 1000).toISOString();
    return { ...base, outcome: 'retry', next_attempt_at: due, error: outcome.error };
  }
}
