import { IssuerError } from './errors.ts';
import type { Derive, ScryptCost } from './passwords.ts';
import { ThreadPool } from './thread-pool.ts';

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
    parentPort.postMessage({ value: new Uint8Array(key) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/** What a refused hash tells the client to wait. */
export const HASH_RETRY_AFTER_SECONDS = 1;

/** The refusal of a hash while every thread is busy. */
export const hashingBusy = () =>
  new IssuerError('UNAVAILABLE', 'too many password checks at once; retry in a moment', {
    retry_after_seconds: HASH_RETRY_AFTER_SECONDS,
  });

interface HashJob {
  password: string;
  salt: Uint8Array;
  length: number;
  options: { N: number; r: number; p: number; maxmem: number };
}

export class HashPool {
  private readonly pool: ThreadPool<HashJob, Uint8Array>;
  /** How many hashes were refused because every thread was busy: for metrics and tests. */
  refused = 0;

  constructor(
    readonly size: number,
    private readonly counted: (result: 'hashed' | 'busy') => void = () => undefined,
  ) {
    this.pool = new ThreadPool({ size, source: WORKER_SOURCE, busy: hashingBusy, what: 'the password hash' });
  }

  /** How many hashes run now. */
  get running(): number {
    return this.pool.running;
  }

  /** The pool as a `Derive` for passwords.ts. */
  readonly derive: Derive = (password, salt, length, cost) => this.run(password, salt, length, cost);

  private async run(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
    if (this.pool.full) {
      this.refused += 1;
      this.counted('busy');
    } else this.counted('hashed');
    const N = 2 ** cost.ln;
    const options = { N, r: cost.r, p: cost.p, maxmem: 128 * N * cost.r + 1024 * 1024 };
    return Buffer.from(await this.pool.run({ password, salt: new Uint8Array(salt), length, options }));
  }

  /** Ends every thread (a hash still running is abandoned). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
