/**
 * The outbox worker, one per channel and instance, beside the request path: it claims due items from
 * its sender, each under a lease of its own (no two instances attempt one item at the same moment, and
 * a result is recorded only under the claim that made it), attempts at most `concurrency` at once (and
 * at most `perGroup` of one group: a slow or dead receiver holds a few sockets, never a check-in), and
 * records the ends in batches before it claims again. While scanners keep the instance busy it gives
 * way (`busyLimits`, claims paced). A store that fails is tried again a second later, said once; the
 * results it could not take are kept until it can. stop() lets the attempts under way end and records
 * them. With a sender that purges, ended items are deleted beside the attempts (PurgeLoop).
 */
import type { FastifyBaseLogger } from 'fastify';
import { outsideAudit } from '../store/audit-context.ts';
import { PurgeLoop } from './purge.ts';
import { ResultBatch, StoreHealth } from './results.ts';
import type { Limits, Sender } from './sender.ts';

/** Slots freed within this many milliseconds share one claim. */
const COALESCE_MS = 5;
/** While the instance is busy, claims are at least this far apart. */
const BUSY_PACE_MS = 50;
/** A failed look waits at least this long before the next. */
const FAILED_LOOK_MS = 1000;

export interface OutboxWorkerOptions {
  log: FastifyBaseLogger;
  limits: Limits;
  /** The limits while `busy()` (each at most the normal one). */
  busyLimits?: Partial<Limits>;
  /** Whether scanners' requests keep the instance busy now. */
  busy?: () => boolean;
  /** How often to look for due items when nothing called for a look sooner (ms). */
  pollMs: number;
  /** How often the purge runs when its last step left nothing over (ms; only with a sender that purges). */
  purgeEveryMs?: number;
}

export class OutboxWorker<Item, Result> {
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts under way per group. */
  private readonly inGroup = new Map<string, number>();
  private readonly health: StoreHealth;
  private readonly results: ResultBatch<Result>;
  private readonly purge: PurgeLoop | null;
  private timer: NodeJS.Timeout | null = null;
  private soonTimer: NodeJS.Timeout | null = null;
  private claiming = false;
  /** The look under way (its claim may still begin attempts). */
  private looking: Promise<void> = Promise.resolve();
  private again = false;
  /** Whether the last look found the instance busy with scanners' requests. */
  private yielding = false;
  private stopped = true;

  constructor(
    private readonly sender: Sender<Item, Result>,
    private readonly o: OutboxWorkerOptions,
  ) {
    this.health = new StoreHealth(sender.name, o.log);
    this.results = new ResultBatch((batch) => sender.record(batch), this.health);
    const purge = sender.purge?.bind(sender);
    this.purge =
      purge === undefined
        ? null
        : new PurgeLoop(purge, {
            name: sender.name,
            log: o.log,
            everyMs: o.purgeEveryMs ?? 60_000,
            busy: () => this.isBusy(),
          });
  }

  /** Attempts under way now. */
  get underWay(): number {
    return this.attempts.size;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.purge?.start();
    this.wake();
  }

  /** Stops claiming, lets the attempts under way end, and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.timer = null;
    this.soonTimer = null;
    await this.purge?.stop();
    await this.looking;
    await Promise.allSettled([...this.attempts]);
    await this.results.close();
  }

  /** Looks for due items now (or as soon as the claim under way ends). */
  wake(): void {
    // Outside the audit entry of a request that woke it: nothing the worker writes is that admin's change.
    outsideAudit(() => this.look());
  }

  private isBusy(): boolean {
    return this.o.busy?.() ?? false;
  }

  private limits(): Limits {
    const { limits, busyLimits } = this.o;
    if (!this.yielding || busyLimits === undefined) return limits;
    return {
      concurrency: Math.min(limits.concurrency, busyLimits.concurrency ?? Infinity),
      claimLimit: Math.min(limits.claimLimit, busyLimits.claimLimit ?? Infinity),
      perGroup: Math.min(limits.perGroup, busyLimits.perGroup ?? Infinity),
    };
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
    this.looking = this.claimAndAttempt()
      .then(() => {
        // The store answers again once it takes the kept results too, not just a claim.
        if (!this.results.keeping) this.health.answered();
      })
      .catch((error: unknown) => {
        failed = true;
        this.health.failed(error, 'the store cannot be read; retrying');
      })
      .finally(() => {
        this.claiming = false;
        if (this.stopped) return;
        const delay = failed
          ? Math.max(this.o.pollMs, FAILED_LOOK_MS)
          : this.again
            ? this.yielding
              ? BUSY_PACE_MS
              : 0
            : this.o.pollMs;
        this.again = false;
        this.timer = setTimeout(() => this.wake(), delay);
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

  private async claimAndAttempt(): Promise<void> {
    // Results still to record go first: a claim never meets an item whose attempt this worker ended.
    await this.results.flush();
    this.yielding = this.isBusy();
    const { concurrency, claimLimit, perGroup } = this.limits();
    const free = concurrency - this.attempts.size;
    // A claim is a write (a commit, synced on SQLite): made once half the slots are free, not for each
    // one that frees, so a fast receiver costs a commit per few attempts rather than one each.
    if (free <= 0 || (this.attempts.size > 0 && free < Math.ceil(concurrency / 2))) return;
    const limit = Math.min(claimLimit, free);
    const groups = [...this.inGroup].map(([group, n]) => ({ group, free: Math.max(0, perGroup - n) }));
    const claimed = await this.sender.claim({ limit, perGroup, groups });
    const claimedAt = performance.now();
    for (const item of claimed) this.begin(item, claimedAt);
    // A full claim means more are due at once.
    if (claimed.length >= limit) this.again = true;
  }

  private begin(item: Item, claimedAt: number): void {
    const group = this.sender.group?.(item);
    if (group !== undefined) this.inGroup.set(group, (this.inGroup.get(group) ?? 0) + 1);
    const attempt = this.attempt(item, claimedAt).finally(() => {
      this.attempts.delete(attempt);
      if (group !== undefined) {
        const left = (this.inGroup.get(group) ?? 1) - 1;
        if (left === 0) this.inGroup.delete(group);
        else this.inGroup.set(group, left);
      }
      // A slot came free: more may be due. Slots freed within a few milliseconds share one claim.
      this.soon();
    });
    this.attempts.add(attempt);
  }

  private async attempt(item: Item, claimedAt: number): Promise<void> {
    try {
      const result = await this.sender.attempt(item, claimedAt);
      if (result !== null) this.results.add(result);
    } catch (error) {
      // Nothing recorded: the item is attempted again once its lease ends.
      this.o.log.warn({ err: error }, `${this.sender.name}: an attempt failed`);
    }
  }
}
