import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The driver's entry, resolved here: the worker's own resolution would start from the working directory. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * The worker's code, plain JavaScript: it opens its own connection to the database file and runs a
 * PASSIVE checkpoint every `intervalMs` (one that never waits for readers or the writer), reporting
 * each one that copied frames.
 *
 * A WAL restarts from its beginning only when a write begins with every frame already copied, which
 * never happens while check-ins keep coming: each pass copies what was there when it began, and the
 * next commit lands meanwhile. The WAL then grows for as long as the load lasts (700 MiB for 30,000
 * check-ins), and every commit writes its frames into new blocks of the file, which the kernel must
 * allocate first (the store's CPU per check-in, 7 % more; docs/benchmark.md §21).
 * So once the WAL holds `restartFrames`, the worker runs passes back to back until one finds little
 * left to copy, then asks the store for a `drain`: the store holds its next commits (they queue,
 * the event loop runs on) while one last pass copies the few frames left, and the first commit after
 * it starts the WAL again from its beginning. A hold is short (DRAIN_HOLD_MS): a pass that does not
 * end in time lets the commits go on, and the next request, a tick later, holds longer.
 *
 * On a disk with little room the threshold is lower: at most a `freeShare`-th of the space the disk has
 * left now, so that the WAL never grows into what is left (a 16 MiB disk filled by its own WAL in under
 * a second of one-at-a-time check-ins, whose groups write twenty pages each). A restart writes over
 * the pages the WAL has; growing needs new ones.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statfsSync } = require('node:fs');
const { dirname } = require('node:path');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
function restartFrames() {
  try {
    const disk = statfsSync(dirname(workerData.path));
    const fit = Math.floor((disk.bavail * disk.bsize) / workerData.freeShare / frameBytes);
    return Math.max(2 * workerData.drainFrames, Math.min(workerData.restartFrames, fit));
  } catch {
    return workerData.restartFrames;
  }
}
function pass() {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  if (result && result.checkpointed > 0) parentPort.postMessage({ checkpointed: result.checkpointed });
  return result;
}
function tick() {
  try {
    let result = pass();
    if (!result || result.log < restartFrames()) return;
    for (let round = 0; round < 10; round++) {
      const copied = result.checkpointed;
      result = pass();
      if (result.log - copied <= workerData.drainFrames) break;
    }
    parentPort.postMessage({ restart: true });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
}
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'drain') {
    let drained = false;
    try {
      const result = pass();
      drained = Boolean(result) && result.busy === 0 && result.log === result.checkpointed;
    } catch (error) {
      parentPort.postMessage({ error: String(error && error.message) });
    }
    parentPort.postMessage({ drained });
    return;
  }
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * How long the store holds its commits for a drain: at first DRAIN_HOLD_MS, then twice as long after
 * each drain that did not end in time, up to DRAIN_TIMEOUT_MS; back to DRAIN_HOLD_MS after one that
 * did. Past it, commits go on and the WAL restarts another time. The last pass usually ends in a few
 * milliseconds, but its sync of the database file now and then takes 30 to 90 (the disk's own
 * pace): a hold that long delayed every check-in in flight by as much, where a short one that gives
 * up costs one more try a quarter of a second later. Doubling keeps a slow disk's WAL restarting.
 */
export const DRAIN_HOLD_MS = 10;
export const DRAIN_TIMEOUT_MS = 200;

export interface CheckpointerOptions {
  intervalMs?: number;
  /**
   * The WAL's frames (a page and 24 bytes each) from which the worker asks for a drain: by default
   * 65,536 (about 256 MiB), reached after some 11,000 check-ins without a pause, so that a drain's
   * hold (a few milliseconds: the last pass copies and syncs; at most DRAIN_HOLD_MS at first) comes seldom.
   */
  restartFrames?: number;
  /** What a drain's pass may have left to copy, in frames. */
  drainFrames?: number;
  /** The WAL restarts from at most this fraction of the disk's free space (1 / freeShare); at least twice drainFrames. */
  freeShare?: number;
  /** Told when the worker asks for a drain (see WORKER_SOURCE): the store holds its commits for `drain()`. */
  onRestartWanted?: () => void;
}

/**
 * Checkpoints the WAL from a worker thread. SQLite's automatic checkpoint runs inside whichever
 * commit crosses the threshold, on the event loop: it copies about 4 MiB of pages into the database
 * file and syncs both files, and every request waits meanwhile (the check-ins' p99 latency). With
 * this, the store turns the automatic checkpoint off and the copying and syncing happen beside the
 * event loop; the file's integrity is SQLite's own business either way.
 */
export class Checkpointer {
  private readonly worker: Worker;
  /** How many checkpoints copied frames: what a test reads to see the worker at work. */
  checkpoints = 0;
  /** How many drains left every frame copied (the next commit restarts the WAL): for tests and benchmarks. */
  drains = 0;
  /** The last error the worker met (it keeps trying), or null. */
  lastError: string | null = null;
  /** The drain the store holds its commits for, settled by its pass's answer or by its time-out. */
  private draining: ((drained: boolean) => void) | null = null;
  /**
   * Whether the worker owes the answer to a drain's pass (it may run on after its hold gave up). One
   * at a time: the next answer is always that pass's.
   */
  private passing = false;
  /** How long the next drain holds the commits at most (see DRAIN_HOLD_MS). */
  holdMs = DRAIN_HOLD_MS;

  /** Whether the worker still runs the pass of a drain (tests read it). */
  get passRunning(): boolean {
    return this.passing;
  }

  /** `onFailure` is told when the worker cannot run: the store then checkpoints by itself again. */
  constructor(path: string, onFailure: () => void, options: CheckpointerOptions = {}) {
    const { intervalMs = 250, restartFrames = 65_536, drainFrames = 512, freeShare = 4, onRestartWanted } = options;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, intervalMs, restartFrames, drainFrames, freeShare, driver: DRIVER },
    });
    this.worker.on(
      'message',
      (message: { checkpointed?: number; error?: string; restart?: true; drained?: boolean }) => {
        if (message.error !== undefined) this.lastError = message.error;
        else if (message.restart) onRestartWanted?.();
        else if (message.drained !== undefined) this.passEnded(message.drained);
        else this.checkpoints += 1;
      },
    );
    this.worker.on('error', (error) => {
      this.lastError = error.message;
      this.settleDrain(false);
      onFailure();
    });
    this.worker.once('exit', () => {
      this.exited = true;
      this.settleDrain(false);
    });
    this.worker.unref();
  }

  /**
   * One pass of the worker while the store holds its commits; resolves whether it left every frame
   * copied. Waits at most `holdMs` (see DRAIN_HOLD_MS), and resolves false at once while the worker
   * still runs the pass of a drain that gave up, or once the worker is gone.
   */
  drain(): Promise<boolean> {
    if (this.exited || this.closing !== null || this.passing) return Promise.resolve(false);
    this.passing = true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.holdMs = Math.min(2 * this.holdMs, DRAIN_TIMEOUT_MS);
        this.settleDrain(false);
      }, this.holdMs);
      this.draining = (drained) => {
        clearTimeout(timer);
        if (drained) this.drains += 1;
        resolve(drained);
      };
      this.worker.postMessage('drain');
    });
  }

  /** The worker answered a drain's pass: settles the drain if it still holds the commits. */
  private passEnded(drained: boolean): void {
    this.passing = false;
    if (this.draining === null) return;
    this.holdMs = DRAIN_HOLD_MS;
    this.settleDrain(drained);
  }

  private settleDrain(drained: boolean): void {
    const settle = this.draining;
    this.draining = null;
    settle?.(drained);
  }

  private exited = false;

  private closing: Promise<void> | null = null;

  /** Stops the worker and closes its connection (once, however often it is called). */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    if (this.exited) return;
    // Held while it closes: an unreferenced worker would let the process end before it has.
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    const timer = setTimeout(() => void this.worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }
}
