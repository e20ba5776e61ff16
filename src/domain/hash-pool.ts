import { Worker } from 'node:worker_threads';
import { IssuerError } from './errors.ts';
import type { Derive, ScryptCost } from './passwords.ts';

/**
 * The threads that hash passwords, apart from everything else. scrypt through `crypto.scrypt` runs on
 * libuv's pool of four threads, shared with the file system and DNS: a flood of sign-ins filled it
 * and the gates' commits waited behind the hashes. Here each hash runs on a worker thread of this
 * pool's own (`scryptSync` there), at most `size` at once per instance; a hash asked for while all of
 * them are busy is refused at once with 503 `UNAVAILABLE` and `Retry-After`, before anything is
 * hashed: a flood is shed rather than queued (a queue would only make every sign-in slow). Threads
 * start when first needed and end after a while without work, so an idle issuer keeps none.
 */

/** A worker's code, plain JavaScript: one hash at a time. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ password, salt, length, options }) => {
  try {
    const key = scryptSync(password, Buffer.from(salt), length, options);
    parentPort.postMessage({ key: new Uint8Array(key) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/** How long a thread waits for work before it ends. */
const IDLE_MS = 30_000;
/** What a refused hash tells the client to wait. */
export const HASH_RETRY_AFTER_SECONDS = 1;

/** The refusal of a hash while every thread is busy. */
export const hashingBusy = () =>
  new IssuerError('UNAVAILABLE', 'too many password checks at once; retry in a moment', {
    retry_after_seconds: HASH_RETRY_AFTER_SECONDS,
  });

interface Thread {
  worker: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
}

export class HashPool {
  private readonly threads: Thread[] = [];
  private closed = false;
  /** How many hashes were refused because every thread was busy: for metrics and tests. */
  refused = 0;

  constructor(
    readonly size: number,
    private readonly counted: (result: 'hashed' | 'busy') => void = () => undefined,
  ) {}

  /** How many hashes run now. */
  get running(): number {
    return this.threads.filter((t) => t.busy).length;
  }

  /** The pool as a `Derive` for passwords.ts. */
  readonly derive: Derive = (password, salt, length, cost) => this.run(password, salt, length, cost);

  private run(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the password hash pool is closed'));
    const thread = this.take();
    if (thread === null) {
      this.refused += 1;
      this.counted('busy');
      return Promise.reject(hashingBusy());
    }
    this.counted('hashed');
    const N = 2 ** cost.ln;
    const options = { N, r: cost.r, p: cost.p, maxmem: 128 * N * cost.r + 1024 * 1024 };
    return new Promise<Buffer>((resolve, reject) => {
      const done = (answer: { key?: Uint8Array; error?: string }) => {
        thread.worker.off('error', failed);
        this.release(thread);
        if (answer.key !== undefined) resolve(Buffer.from(answer.key));
        else reject(new Error(`password hash failed: ${answer.error ?? 'unknown error'}`));
      };
      const failed = (error: Error) => {
        thread.worker.off('message', done);
        this.drop(thread);
        reject(error);
      };
      thread.worker.once('message', done);
      thread.worker.once('error', failed);
      thread.worker.postMessage({ password, salt: new Uint8Array(salt), length, options });
    });
  }

  /** An idle thread (started if the pool has room), marked busy; null when all are busy. */
  private take(): Thread | null {
    let thread = this.threads.find((t) => !t.busy) ?? null;
    if (thread === null && this.threads.length < this.size) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      thread = { worker, busy: false, idle: null };
      const started = thread;
      worker.once('exit', () => this.forget(started));
      this.threads.push(thread);
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
    thread.idle = setTimeout(() => this.drop(thread), IDLE_MS);
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

  /** Ends every thread (a hash still running is abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    for (const thread of threads) if (thread.idle !== null) clearTimeout(thread.idle);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
