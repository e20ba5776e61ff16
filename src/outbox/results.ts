/**
 * The worker's side of a store that may fail: a failure is said once per outage and its return once,
 * and the ends of attempts are recorded in batches, kept (in order, before newer ones) while the store
 * cannot take them and offered again a second later.
 */
import type { FastifyBaseLogger } from 'fastify';

/** Whether the store answered the last time it was asked; says so once when that changes. */
export class StoreHealth {
  private failing = false;

  constructor(
    private readonly name: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  get isFailing(): boolean {
    return this.failing;
  }

  failed(error: unknown, what: string): void {
    if (!this.failing) this.log.warn({ err: error }, `${this.name}: ${what}`);
    this.failing = true;
  }

  answered(): void {
    if (this.failing) this.log.info(`${this.name}: the store answers again`);
    this.failing = false;
  }
}

/** Results waiting a little (20 ms, or 100 of them) to be recorded together. */
export const BATCH_SIZE = 100;
const BATCH_WAIT_MS = 20;
/** How long kept results wait before they are offered again. */
const RETRY_MS = 1000;

export class ResultBatch<Result> {
  private results: Result[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private failed = false;

  constructor(
    private readonly record: (results: Result[]) => Promise<void>,
    private readonly health: StoreHealth,
  ) {}

  /** Whether the last try to record failed (its results are kept). */
  get keeping(): boolean {
    return this.failed;
  }

  add(result: Result): void {
    this.results.push(result);
    if (this.results.length >= BATCH_SIZE) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), BATCH_WAIT_MS);
  }

  /** Records what waits in one call; kept for the next try when the store cannot. Never rejects. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing = this.flushing.then(async () => {
      const batch = this.results;
      if (batch.length === 0) return;
      this.results = [];
      try {
        await this.record(batch);
        this.failed = false;
        this.health.answered();
      } catch (error) {
        this.failed = true;
        this.health.failed(error, 'recording attempts failed; kept to try again');
        this.results = batch.concat(this.results);
        if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), RETRY_MS);
      }
    });
    return this.flushing;
  }

  /** One last flush, and no retry after it (what the store still cannot take waits for its leases to end). */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }
}
