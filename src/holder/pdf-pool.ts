import { createRequire } from 'node:module';
import { IssuerError } from '../domain/errors.ts';
import { ThreadPool } from '../domain/thread-pool.ts';
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
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const PDFDocument = require(workerData.pdfkit);
// pdfkit's own fontkit: a font file is read and parsed once per thread, not once per PDF (its tables
// cost more than the rest of the page); pdfkit takes the parsed font and embeds a subset per document.
const fontkit = createRequire(workerData.pdfkit)('fontkit');
const parsed = new Map();
const fontOf = (name) => {
  if (!name.startsWith('/')) return name;
  if (!parsed.has(name)) parsed.set(name, fontkit.create(readFileSync(name)));
  return parsed.get(name);
};
parentPort.on('message', ({ title, steps }) => {
  try {
    const doc = new PDFDocument({ size: 'A4', margin: ${MARGIN}, info: { Title: title, Creator: 'ticket-issuer' } });
    const chunks = [];
    doc.on('data', (chunk) => chunks.push(chunk));
    doc.on('end', () => {
      const pdf = Buffer.concat(chunks);
      parentPort.postMessage({ value: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) });
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
        doc.font(fontOf(step.font), step.font).fontSize(step.size).fillColor('#000000').text(step.text, ${MARGIN}, doc.y, { width });
        doc.y += step.gap;
      }
    }
    doc.end();
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/** What a refused PDF tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

export class PdfPool {
  private readonly pool: ThreadPool<{ title: string; steps: PdfStep[] }, Uint8Array>;

  constructor(readonly size: number) {
    this.pool = new ThreadPool({
      size,
      source: WORKER_SOURCE,
      workerData: { pdfkit: createRequire(import.meta.url).resolve('pdfkit') },
      busy: () =>
        new IssuerError('UNAVAILABLE', 'too many PDFs at once; retry in a moment', {
          retry_after_seconds: RETRY_AFTER_SECONDS,
        }),
      what: 'the PDF',
    });
  }

  /** Draws one PDF from its steps on a thread of the pool; 503 at once when every thread is busy. */
  async draw(title: string, steps: PdfStep[]): Promise<Buffer> {
    return Buffer.from(await this.pool.run({ title, steps }));
  }

  /** Ends every thread (a PDF still being drawn is abandoned). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
