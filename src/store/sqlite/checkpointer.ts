import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The driver's entry, resolved here: the worker's own resolution would start from the working directory. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * The worker's code, plain JavaScript: it opens its own connection to the database file and runs a
 * PASSIVE checkpoint every `intervalMs` (one that never waits for readers or the writer), reporting
 * each one that copied frames.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result && result.checkpointed > 0) parentPort.postMessage({ checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

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
  /** The last error the worker met (it keeps trying), or null. */
  lastError: string | null = null;

  /** `onFailure` is told when the worker cannot run: the store then checkpoints by itself again. */
  constructor(path: string, onFailure: () => void, intervalMs = 250) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, intervalMs, driver: DRIVER } });
    this.worker.on('message', (message: { checkpointed?: number; error?: string }) => {
      if (message.error !== undefined) this.lastError = message.error;
      else this.checkpoints += 1;
    });
    this.worker.on('error', (error) => {
      this.lastError = error.message;
      onFailure();
    });
    this.worker.once('exit', () => (this.exited = true));
    this.worker.unref();
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
