import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { IssuerError } from '../domain/errors.ts';
import { MARGIN, PAGE_WIDTH, type PdfStep } from './pdf-layout.ts';

/**
 * The threads that draw ticket PDFs, apart from the requests and the store's commits. A PDF costs tens
 * of milliseconds of CPU (a font subset, compression) and a stranger with a holder link can ask for
 * it, so (as the password hashes) each is drawn on a worker thread of this pool's own, at most `size`
 * at once per instance; one asked for while all are busy is refused at once with 503 `UNAVAILABLE` and
 * `Retry-After`. Threads start when first needed and end after a while without work. The layout is
 * decided on the request's side (`pdf-layout.ts`); a thread only carries out its steps with pdfkit.
 */

/** A worker's code, plain JavaScript: one PDF at a time, from its steps. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const PDFDocument = require(workerData.pdfkit);
parentPort.on('message', ({ title, steps }) => {
  try {
    const doc = new PDFDocument({ size: 'A4', margin: ${MARGIN}, info: { Title: title, Creator: 'ticket-issuer' } });
    const chunks = [];
    doc.on('data', (chunk) => chunks.push(chunk));
    doc.on('end', () => {
      const pdf = Buffer.concat(chunks);
      parentPort.postMessage({ pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) });
    });
    const width = ${PAGE_WIDTH} - 2 * ${MARGIN};
    for (const step of steps) {
      if (step.squares) {
        const top = doc.y + 4;
        for (const [x, y, w, h] of step.squares) doc.rect(${MARGIN} + x, top + y, w, h);
        doc.fill('#000000');
        doc.x = ${MARGIN};
        doc.y = top + step.side + 4;
      } else {
        doc.font(step.font).fontSize(step.size).fillColor('#000000').text(step.text, ${MARGIN}, doc.y, { width });
        doc.y += step.gap;
      }
    }
    doc.end();
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

const IDLE_MS = 30_000;
/** What a refused PDF tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

interface Thread {
  worker: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
}

export class PdfPool {
  private readonly threads: Thread[] = [];
  private readonly pdfkit = createRequire(import.meta.url).resolve('pdfkit');
  private closed = false;

  constructor(readonly size: number) {}

  /** Draws one PDF from its steps on a thread of the pool; 503 at once when every thread is busy. */
  draw(title: string, steps: PdfStep[]): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the PDF pool is closed'));
    const thread = this.take();
    if (thread === null) {
      return Promise.reject(
        new IssuerError('UNAVAILABLE', 'too many PDFs at once; retry in a moment', {
          retry_after_seconds: RETRY_AFTER_SECONDS,
        }),
      );
    }
    return new Promise<Buffer>((resolve, reject) => {
      const done = (answer: { pdf?: Uint8Array; error?: string }) => {
        thread.worker.off('error', failed);
        this.release(thread);
        if (answer.pdf !== undefined) resolve(Buffer.from(answer.pdf));
        else reject(new Error(`the PDF failed: ${answer.error ?? 'unknown error'}`));
      };
      const failed = (error: Error) => {
        thread.worker.off('message', done);
        this.drop(thread);
        reject(error);
      };
      thread.worker.once('message', done);
      thread.worker.once('error', failed);
      thread.worker.postMessage({ title, steps });
    });
  }

  /** An idle thread (started if the pool has room), marked busy; null when all are busy. */
  private take(): Thread | null {
    let thread = this.threads.find((t) => !t.busy) ?? null;
    if (thread === null && this.threads.length < this.size) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pdfkit: this.pdfkit } });
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

  /** Ends every thread (a PDF still being drawn is abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    for (const thread of threads) if (thread.idle !== null) clearTimeout(thread.idle);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
