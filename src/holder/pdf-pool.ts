import { IssuerError } from '../domain/errors.ts';
import { ThreadPool } from '../domain/thread-pool.ts';
import type { PdfStep } from './pdf-layout.ts';
import { HOLDER_THREAD_SOURCE, pdfThreadModules } from './pdf-thread.ts';

/**
 * The threads that draw holders' ticket PDFs and their holder page's QR codes, apart from the requests
 * and the store's commits. A PDF costs milliseconds of CPU (its QR code, the text's layout, a font
 * subset, compression), a QR code several (its mask choice and segment search), and a stranger with a
 * holder link can ask for either, so (as the password hashes) each is made on a worker thread of this
 * pool's own, at most `size` at once per instance; one asked for while all are busy is refused at
 * once with 503 `UNAVAILABLE` and `Retry-After`. Threads start when first needed and end after a while
 * without work. The layout is decided on the request's side (`pdf-layout.ts`); a thread carries out its
 * steps with pdfkit (`pdf-thread.ts`). The mail's PDFs are drawn on a thread of their own
 * (`src/delivery/mail-thread.ts`), never on these.
 */

type Job = { title: string; steps: PdfStep[] } | { qr: string };

/** A QR code as the holder page draws it: its side in modules, and an SVG path of its dark runs (quiet zone included). */
export interface QrPath {
  size: number;
  path: string;
}

/** What a refused PDF tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export class PdfPool {
  private readonly pool: ThreadPool<Job, Uint8Array | QrPath>;

  constructor(readonly size: number) {
    this.pool = new ThreadPool({
      size,
      source: HOLDER_THREAD_SOURCE,
      workerData: pdfThreadModules(),
      busy: () =>
        new IssuerError('UNAVAILABLE', 'too many PDFs and QR codes at once; retry in a moment', {
          retry_after_seconds: RETRY_AFTER_SECONDS,
        }),
      what: 'the PDF',
    });
  }

  /** Draws one PDF from its steps on a thread of the pool; 503 at once when every thread is busy. */
  async draw(title: string, steps: PdfStep[]): Promise<Buffer> {
    return asBuffer((await this.pool.run({ title, steps })) as Uint8Array);
  }

  /** Makes the QR code of a text on a thread of the pool; 503 at once when every thread is busy. */
  async qr(text: string): Promise<QrPath> {
    return (await this.pool.run({ qr: text })) as QrPath;
  }

  /** Ends every thread (a PDF still being drawn is abandoned). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
