import { Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads for CPU work that must not hold the event loop (password hashes,
 * ticket PDFs, signed passes), that sheds load instead of queueing it: at most `size` jobs at once per
 * instance, and one asked for while every thread is busy is refused at once (`busy()`, a 503 with
 * `Retry-After` for the caller to send). A queue would only make every request slow during a flood.
 * Threads start when first needed and end after a while without work, so an idle issuer keeps none.
 *
 * A worker's code (plain JavaScript, run with `eval`, so it works from src/ and from the build alike)
 * answers each message with `{ value }` or `{ error }`.
 */

/** How long a thread waits for work before it ends. */
export const THREAD_IDLE_MS = 30_000;

/**
 * The start of a background thread's code: on Linux a thread has a nice value of its own (its id is
 * the last part of /proc/thread-self), so the thread gives the CPU to the event loop whenever both want
 * it and still takes whatever is idle. Elsewhere, or if refused, the thread runs as it would have.
 */
export const niceSource = (nice: number): string => `
try {
  const thread = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(thread, ${nice});
} catch {}
`;

interface Thread {
  worker: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
}

export interface ThreadPoolOptions {
  /** The most jobs at once. */
  size: number;
  /** The worker's code. */
  source: string;
  /** Given to each worker as `workerData` (e.g. a module's resolved path). */
  workerData?: unknown;
  /** The refusal of a job while every thread is busy. */
  busy: () => Error;
  /** What a job is, for the error of one that failed ("the PDF", "the password hash"). */
  what: string;
  /** The threads' nice value, for work that must yield to requests (1 to 19; Linux only). */
  nice?: number;
}

export class ThreadPool<Message, Value> {
  private readonly threads: Thread[] = [];
  private closed = false;

  constructor(private readonly options: ThreadPoolOptions) {}

  get size(): number {
    return this.options.size;
  }

  /** How many jobs run now. */
  get running(): number {
    return this.threads.filter((t) => t.busy).length;
  }

  /** Whether a job asked for now would find a thread. */
  get full(): boolean {
    return this.running >= this.options.size;
  }

  /** Runs one job on a thread of the pool; rejects at once with `busy()` when every thread is busy. */
  run(message: Message): Promise<Value> {
    if (this.closed) return Promise.reject(new Error(`${this.options.what}: the pool is closed`));
    const thread = this.take();
    if (thread === null) return Promise.reject(this.options.busy());
    return new Promise<Value>((resolve, reject) => {
      const done = (answer: { value?: Value; error?: string }) => {
        thread.worker.off('error', failed);
        this.release(thread);
        if (answer.error === undefined) resolve(answer.value as Value);
        else reject(new Error(`${this.options.what} failed: ${answer.error}`));
      };
      const failed = (error: Error) => {
        thread.worker.off('message', done);
        this.drop(thread);
        reject(error);
      };
      thread.worker.once('message', done);
      thread.worker.once('error', failed);
      thread.worker.postMessage(message);
    });
  }

  /** An idle thread (started if the pool has room), marked busy; null when all are busy. */
  private take(): Thread | null {
    let thread = this.threads.find((t) => !t.busy) ?? null;
    if (thread === null && this.threads.length < this.options.size) {
      const { source, nice } = this.options;
      const code = nice === undefined ? source : niceSource(nice) + source;
      const worker = new Worker(code, { eval: true, workerData: this.options.workerData });
      const started: Thread = { worker, busy: false, idle: null };
      worker.once('exit', () => this.forget(started));
      this.threads.push(started);
      thread = started;
    }
    if (thread === null) return null;
    if (thread.idle !== null) clearTimeout(thread.idle);
    thread.idle = null;
    thread.busy = true;
    thread.worker.ref();
    return thread;
  }

  private release(thread: Thread): void {
    thread.busy = false;
    thread.worker.unref();
    thread.idle = setTimeout(() => this.drop(thread), THREAD_IDLE_MS);
    thread.idle.unref();
  }

  private drop(thread: Thread): void {
    this.forget(thread);
    void thread.worker.terminate();
  }

  private forget(thread: Thread): void {
    if (thread.idle !== null) clearTimeout(thread.idle);
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
  }

  /** Ends every thread (a job still running is abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    for (const thread of threads) if (thread.idle !== null) clearTimeout(thread.idle);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
