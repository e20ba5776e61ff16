/**
 * The purge of a sender's ended items, beside its attempts: a bounded batch per step; while a step found
 * a full batch the next follows at once (a little later while scanners keep the instance busy),
 * otherwise after `everyMs`. A store that cannot serve is tried again at the next step, said once.
 */
import type { FastifyBaseLogger } from 'fastify';
import { StoreHealth } from './results.ts';

/** How long to wait between full batches while the gates keep the instance busy. */
const BUSY_PAUSE_MS = 50;

export class PurgeLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly health: StoreHealth;

  constructor(
    private readonly purge: () => Promise<boolean>,
    private readonly o: { name: string; log: FastifyBaseLogger; everyMs: number; busy: () => boolean },
  ) {
    this.health = new StoreHealth(`${o.name} (purge)`, o.log);
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
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.step().finally(() => (this.running = null));
    }, ms);
  }

  private async step(): Promise<void> {
    let next = this.o.everyMs;
    try {
      if (await this.purge()) next = this.o.busy() ? BUSY_PAUSE_MS : 0;
      this.health.answered();
    } catch (error) {
      this.health.failed(error, 'the store cannot be used; retrying');
    }
    if (!this.stopped) this.schedule(next);
  }
}
