/**
 * The outbox's upkeep, one loop per instance beside the request path and apart from delivery: it fails
 * what disabled endpoints left pending, deletes what deleted endpoints left, and deletes delivered and
 * failed messages past WEBHOOK_RETENTION_DAYS, a bounded batch per step. While a step found a full
 * batch the next follows at once (a little later while scanners keep the instance busy); otherwise the
 * loop looks again every few seconds. A store that cannot serve is tried again, said once.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/store.ts';

const DAY_S = 24 * 60 * 60;
/** Messages per part of a step: a few milliseconds of work for the store. */
export const UPKEEP_BATCH = 2000;
/** How long to wait between batches while the gates keep the instance busy. */
const BUSY_PAUSE_MS = 50;

export interface UpkeepOptions {
  store: Store;
  clock: Clock;
  retentionDays: number;
  log: FastifyBaseLogger;
  /** How often to look when nothing was left to do (ms). */
  idleMs?: number;
  /** Whether scanners' requests keep the instance busy now. */
  busy?: () => boolean;
}

export class OutboxUpkeep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private storeFailing = false;
  private readonly idleMs: number;

  constructor(private readonly o: UpkeepOptions) {
    this.idleMs = o.idleMs ?? 2000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops after the step under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.step().finally(() => (this.running = null));
    }, ms);
  }

  private async step(): Promise<void> {
    let next = this.idleMs;
    try {
      const done = await this.o.store.webhooks.upkeepWebhookOutbox({
        now: this.o.clock.now().toISOString(),
        retentionSeconds: this.o.retentionDays * DAY_S,
        batch: UPKEEP_BATCH,
      });
      if (this.storeFailing) this.o.log.info('webhook upkeep: the store answers again');
      this.storeFailing = false;
      const more = Math.max(done.failed, done.purged, done.expired) >= UPKEEP_BATCH;
      if (more) next = this.o.busy?.() ? BUSY_PAUSE_MS : 0;
    } catch (error) {
      if (!this.storeFailing) this.o.log.warn({ err: error }, 'webhook upkeep: the store cannot be used; retrying');
      this.storeFailing = true;
    }
    if (!this.stopped) this.schedule(next);
  }
}
