import { close, fsync, open } from 'node:fs';

/** One fsync of a file on libuv's thread pool: open, fsync, close, so that no descriptor goes stale. */
function syncFile(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      fsync(fd, (syncError) => {
        close(fd, () => (syncError ? reject(syncError) : resolve()));
      });
    });
  });
}

/**
 * Makes commits durable off the event loop. The store runs SQLite with `synchronous = NORMAL` in WAL
 * mode, where a commit writes its frames to the WAL file but does not fsync it; `synchronous = FULL`
 * would add exactly one fsync of the WAL after each commit, on the event loop, stalling every other
 * request meanwhile. Here that fsync runs on the thread pool instead, and whoever committed is
 * answered only once it completed: the same guarantee, without the stall. Checkpoints keep
 * SQLite's own syncs (WAL before copying, database after), so the file is never corrupted.
 *
 * Calls that arrive while an fsync is running share the next one: at most one runs and one waits.
 */
export class WalSync {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** How many fsyncs ran: what a test reads to see them shared. */
  syncs = 0;

  constructor(private readonly walPath: string) {}

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
      this.running = syncFile(this.walPath).finally(() => {
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
}
