/**
 * The threads that sign passes, apart from everything else. passkit-generator signs with node-forge, in
 * JavaScript: about a tenth of a second of CPU per pass, which on the event loop would hold every
 * check-in behind it. Here each pass is zipped and signed on a worker thread of this pool's own, at most
 * `size` at once per instance; a pass asked for while all of them are busy is refused at once with 503
 * `UNAVAILABLE` and `Retry-After` (a download that a stranger can trigger is shed, never queued). Threads
 * start when first needed and end after a while without work.
 */
import { createRequire } from 'node:module';
import { IssuerError } from '../../domain/errors.ts';
import { ThreadPool } from '../../domain/thread-pool.ts';

/** A worker's code, plain JavaScript (it runs from src/ and from the build alike): one pass at a time. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PKPass } = require(workerData.passkit);
parentPort.on('message', ({ files, certificates }) => {
  try {
    const buffers = {};
    for (const [name, bytes] of Object.entries(files)) buffers[name] = Buffer.from(bytes);
    const pass = new PKPass(buffers, certificates);
    parentPort.postMessage({ value: new Uint8Array(pass.getAsBuffer()) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

const PASSKIT = createRequire(import.meta.url).resolve('passkit-generator');
export const PASS_RETRY_AFTER_SECONDS = 1;

/** What a signature needs: the pass certificate and key, and the WWDR certificate (PEM). */
export interface PassCertificates {
  wwdr: string;
  signerCert: string;
  signerKey: string;
}

interface PassJob {
  files: Record<string, Uint8Array>;
  certificates: PassCertificates;
}

export class PassPool {
  private readonly pool: ThreadPool<PassJob, Uint8Array>;

  constructor(
    readonly size: number,
    private readonly certificates: PassCertificates,
  ) {
    this.pool = new ThreadPool({
      size,
      source: WORKER_SOURCE,
      workerData: { passkit: PASSKIT },
      busy: () =>
        new IssuerError('UNAVAILABLE', 'too many passes asked for at once; retry in a moment', {
          retry_after_seconds: PASS_RETRY_AFTER_SECONDS,
        }),
      what: 'signing the pass',
    });
  }

  /** The `.pkpass` of these files (pass.json and the images), signed; 503 UNAVAILABLE when every thread is busy. */
  async build(files: Record<string, Buffer>): Promise<Buffer> {
    const bytes = Object.fromEntries(Object.entries(files).map(([name, b]) => [name, new Uint8Array(b)]));
    return Buffer.from(await this.pool.run({ files: bytes, certificates: this.certificates }));
  }

  /** Ends every thread. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
