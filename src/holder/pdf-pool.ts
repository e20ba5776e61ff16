import { IssuerError } from '../domain/errors.ts';
import { ThreadPool } from '../domain/thread-pool.ts';
import type { PdfStep } from './pdf-layout.ts';
import { PDF_THREAD_SOURCE, pdfThreadModules } from './pdf-thread.ts';

/**
 * The threads that draw ticket PDFs, apart from the requests and the store's commits. A PDF costs
 * milliseconds of CPU (its QR code, the text's layout, a font subset, compression) and a stranger with
 * a holder link can ask for it, so (as the password hashes) each is drawn on a worker thread of this
 * pool's own, at most `size` at once per instance; one asked for while all are busy is refused at
 * once with 503 `UNAVAILABLE` and `Retry-After`. Threads start when first needed and end after a while
 * without work. The layout is decided on the request's side (`pdf-layout.ts`); a thread carries out its
 * steps with pdfkit (`pdf-thread.ts`), and for an email builds the whole message around the PDF.
 */

/** An email's headers and parts, as the thread builds its MIME message around the PDF it draws. */
export interface MailParts {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The attached PDF's file name. */
  filename: string;
}

/** An email built on a thread: the SMTP envelope (from its headers) and the whole message. */
export interface BuiltMail {
  envelope: { from: string | false; to: string[] };
  raw: Buffer;
}

interface Job {
  title: string;
  steps: PdfStep[];
  mail?: MailParts;
}

interface Done {
  bytes: Uint8Array;
  envelope?: BuiltMail['envelope'];
}

/**
 * A background thread's nice value: about a tenth of the CPU of a thread at 0 when both want it. Not 19
 * (a sixtieth): on a machine kept busy by other work the thread would starve, and mail never go.
 */
const BACKGROUND_NICE = 10;

/** What a refused PDF tells the client to wait. */
const RETRY_AFTER_SECONDS = 1;

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export class PdfPool {
  private readonly pool: ThreadPool<Job, Done>;

  /** `background`: the threads yield the CPU to the event loop (the mail's, which no one waits for). */
  constructor(
    readonly size: number,
    { background = false }: { background?: boolean } = {},
  ) {
    this.pool = new ThreadPool({
      size,
      ...(background ? { nice: BACKGROUND_NICE } : {}),
      source: PDF_THREAD_SOURCE,
      workerData: pdfThreadModules(),
      busy: () =>
        new IssuerError('UNAVAILABLE', 'too many PDFs at once; retry in a moment', {
          retry_after_seconds: RETRY_AFTER_SECONDS,
        }),
      what: 'the PDF',
    });
  }

  /** Draws one PDF from its steps on a thread of the pool; 503 at once when every thread is busy. */
  async draw(title: string, steps: PdfStep[]): Promise<Buffer> {
    return asBuffer((await this.pool.run({ title, steps })).bytes);
  }

  /** Draws one PDF and builds the email that carries it, both on a thread; 503 at once when all are busy. */
  async mail(title: string, steps: PdfStep[], mail: MailParts): Promise<BuiltMail> {
    const done = await this.pool.run({ title, steps, mail });
    return { envelope: done.envelope!, raw: asBuffer(done.bytes) };
  }

  /** Ends every thread (a PDF still being drawn is abandoned). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
