/**
 * Google Wallet pushes as a sender of the outbox worker: it claims due pushes of the wallet outbox's
 * `google` channel under a lease, patches each ticket's object as the ticket stands now, and records
 * how each ended (a retry after the schedule's next delay, or the service's Retry-After).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import { nextRetry } from '../outbox/schedule.ts';
import type { Room, Sender } from '../outbox/sender.ts';
import type { Store } from '../store/store.ts';
import type { ClaimedWalletPush, WalletPushResult } from '../store/wallet-push-records.ts';
import { type GoogleWalletApi, type PatchOutcome, reissuedPatch, revokedPatch } from './google-wallet-api.ts';

/** Delays in seconds after each failed attempt (about two days in all); then the push has failed. */
export const GOOGLE_PUSH_RETRY_SCHEDULE_S = [10, 60, 300, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400];

export interface WalletPushSenderOptions {
  store: Store;
  api: GoogleWalletApi;
  clock: Clock;
  log: FastifyBaseLogger;
  /** A claim's lease: longer than an attempt can take (token and patch, each bounded by the API timeout). */
  leaseSeconds?: number;
  schedule?: readonly number[];
}

export class GooglePushSender implements Sender<ClaimedWalletPush, WalletPushResult> {
  readonly name = 'google wallet pushes';

  constructor(private readonly o: WalletPushSenderOptions) {}

  claim(room: Room): Promise<ClaimedWalletPush[]> {
    const now = this.o.clock.now();
    const leaseUntil = new Date(now.getTime() + (this.o.leaseSeconds ?? 60) * 1000).toISOString();
    return this.o.store.walletPushes.claim('google', now.toISOString(), leaseUntil, room.limit);
  }

  async attempt(push: ClaimedWalletPush): Promise<WalletPushResult> {
    const patch = push.revoked_at !== null ? revokedPatch() : reissuedPatch(push.ticket_token);
    const outcome = await this.o.api.patchObject(push.tid, patch);
    const result = this.resultOf(push, outcome, this.o.clock.now());
    const line = { tid: push.tid, kind: push.kind, outcome: result.outcome, status: result.status };
    if (result.outcome === 'failed') this.o.log.warn({ ...line, error: result.error }, 'google wallet push failed');
    else this.o.log.info(line, 'google wallet push');
    return result;
  }

  async record(results: WalletPushResult[]): Promise<void> {
    await this.o.store.walletPushes.record(results);
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
