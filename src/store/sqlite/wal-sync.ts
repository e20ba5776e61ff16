import { closeSync, fstat, openSync } from 'node:fs';
import { fsyncOnOwnThread } from './fsync-thread.ts';

/**
 * Makes commits durable off the event loop. The store runs SQLite with `synchronous = NORMAL` in WAL
 * mode, where a commit writes its frames to the WAL file but does not fsync it; `synchronous = FULL`
 * would add exactly one fsync of the WAL after each commit, on the event loop, stalling every other
 * request meanwhile. Here that fsync runs on a thread of its own instead, and whoever committed is
 * answered only once it completed: the same guarantee, without the stall. Checkpoints keep
 * SQLite's own syncs (WAL before copying, database after), so the file is never corrupted.
 *
 * Calls that arrive while an fsync is running share the next one: at most one runs and one waits.
 *
 * The WAL's descriptor is opened at the first fsync and kept until `close`. Opening and closing it
 * around each fsync cost two more trips through libuv's thread pool, queued behind whatever the pool
 * was doing (under check-ins, signature checks), and every group of check-ins waits for its fsync: it
 * took about twice as long that way. A kept descriptor cannot go stale while the store is open:
 * SQLite deletes the WAL only when the last connection to the database closes, and the store's own
 * connection stays open until after `close`; a checkpoint rewrites the file in place. After a failed
 * fsync the descriptor is closed, and the next fsync opens the file again.
 */
export class WalSync {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fd: number | null = null;
  private closed = false;
  /** How many fsyncs ran: what a test reads to see them shared. */
  syncs = 0;

  /** `grown`: told once, after an fsync, when the WAL first holds `bytes` or more. */
  constructor(
    private readonly walPath: string,
    private grown: { bytes: number; then: () => void } | null = null,
  ) {}

  /**
   * Resolves once every commit that already asked for its fsync is on disk: at once when none is
   * pending. Reads that scanners act on wait for it, so they never see a change a crash could undo.
   */
  settled(): Promise<void> {
    return (this.next ?? this.running ?? Promise.resolve()).catch(() => undefined);
  }

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.running === null) {
      this.syncs += 1;
      this.running = this.syncOnce().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    // The running fsync may have started before this commit's frames were written: wait for the next.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.sync();
      });
    return this.next;
  }

  /**
   * Once every fsync asked for has ended, closes the descriptor (before the store closes its
   * connection). An fsync asked for after that is refused: it would open the file again and keep it.
   */
  async close(): Promise<void> {
    await this.settled();
    this.closed = true;
    this.release();
  }

  /** One fsync of the WAL on the fsync thread (fsync-thread.ts), through the kept descriptor. */
  private syncOnce(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the store is closed'));
        return;
      }
      let fd: number;
      try {
        fd = this.fd ??= openSync(this.walPath, 'r');
      } catch (error) {
        reject(error as Error);
        return;
      }
      fsyncOnOwnThread(fd).then(
        () => {
          resolve();
          if (this.grown !== null) this.measure(fd);
        },
        (error: Error) => {
          this.release();
          reject(error);
        },
      );
    });
  }

  /** Tells `grown` once the WAL has reached its size (a stat on the thread pool, beside the answer). */
  private measure(fd: number): void {
    fstat(fd, (error, stats) => {
      const grown = this.grown;
      if (error !== null || grown === null || stats.size < grown.bytes) return;
      this.grown = null;
      grown.then();
    });
  }

  private release(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd === null) return;
    try {
      closeSync(fd);
    } catch {
      // Closing a descriptor frees it whatever close(2) reports; there is nothing to retry.
    }
  }
}
