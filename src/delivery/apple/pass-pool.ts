/**
 * The threads that sign passes, apart from everything else. passkit-generator signs with node-forge, in
 * JavaScript: about a tenth of a second of CPU per pass, which on the event loop would hold every
 * check-in behind it. Here each pass is zipped and signed on a worker thread of this pool's own, at most
 * `size` at once per instance; a pass asked for while all of them are busy is refused at once with 503
 * `UNAVAILABLE` and `Retry-After` (a download that a stranger can trigger is shed, never queued). Threads
 * start when first needed and end after a while without work.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { IssuerError } from '../../domain/errors.ts';

/** A worker's code, plain JavaScript (it runs from src/ and from the build alike): one pass at a time. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PKPass } = require(workerData.passkit);
parentPort.on('message', ({ files, certificates }) => {
  try {
    const buffers = {};
    for (const [name, bytes] of Object.entries(files)) buffers[name] = Buffer.from(bytes);
    const pass = new PKPass(buffers, certificates);
    parentPort.postMessage({ pass: new Uint8Array(pass.getAsBuffer()) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

const PASSKIT = createRequire(import.meta.url).resolve('passkit-generator');
const IDLE_MS = 30_000;
export const PASS_RETRY_AFTER_SECONDS = 1;

/** What a signature needs: the pass certificate and key, and the WWDR certificate (PEM). */
export interface PassCertificates {
  wwdr: string;
  signerCert: string;
  signerKey: string;
}

interface Thread {
  worker: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
}

export class PassPool {
  private readonly threads: Thread[] = [];
  private closed = false;

  constructor(
    readonly size: number,
    private readonly certificates: PassCertificates,
  ) {}

  /** The `.pkpass` of these files (pass.json and the images), signed; 503 UNAVAILABLE when every thread is busy. */
  build(files: Record<string, Buffer>): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the pass pool is closed'));
    const thread = this.take();
    if (thread === null) {
      return Promise.reject(
        new IssuerError('UNAVAILABLE', 'too many passes asked for at once; retry in a moment', {
          retry_after_seconds: PASS_RETRY_AFTER_SECONDS,
        }),
      );
    }
    const message = { files: Object.fromEntries(Object.entries(files).map(([n, b]) => [n, new Uint8Array(b)])) };
    return new Promise<Buffer>((resolve, reject) => {
      const done = (answer: { pass?: Uint8Array; error?: string }) => {
        thread.worker.off('error', failed);
        this.release(thread);
        if (answer.pass !== undefined) resolve(Buffer.from(answer.pass));
        else reject(new Error(`the pass could not be signed: ${answer.error ?? 'unknown error'}`));
      };
      const failed = (error: Error) => {
        thread.worker.off('message', done);
        this.drop(thread);
        reject(error);
      };
      thread.worker.once('message', done);
      thread.worker.once('error', failed);
      thread.worker.postMessage({ ...message, certificates: this.certificates });
    });
  }

  private take(): Thread | null {
    let thread = this.threads.find((t) => !t.busy) ?? null;
    if (thread === null && this.threads.length < this.size) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { passkit: PASSKIT } });
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
    thread.idle = setTimeout(() => this.drop(thread), IDLE_MS);
    thread.idle.unref();
  }

  private drop(thread: Thread): void {
    this.forget(thread);
    void thread.worker.terminate();
  }

  private forget(thread: Thread): void {
    if (thread.idle !== null) clearTimeout(thread.idle);
    const index = this.threads.indexOf(thread);
    if (index >= 0) this.threads.splice(index, 1);
  }

  /** Ends every thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }
}
