import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ScannerError } from '../errors.ts';
import { lockDirectory } from './fs-lock.ts';
import type { Storage } from './storage.ts';

const JOURNAL = 'journal.jsonl';
/** Owner only: the state holds an API key and the device's scans. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Wraps a file-system failure in a typed error naming the file (never its content). */
function ioError(what: string, error: unknown): ScannerError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new ScannerError('STATE_IO', `cannot ${what}: ${code}`, { cause: error });
}

/** Flushes a directory so that a rename or a new file in it survives a crash. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    // Some platforms cannot open or flush a directory; the rename itself is still atomic there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * The Node file-system Storage: one directory (mode 0700), files of mode 0600, every write flushed
 * with fsync before it returns, whole-file replacement by write-to-temp, fsync, rename, fsync of the
 * directory. The journal is append-only; a torn last line is cut off before the next append.
 */
export class FsStorage implements Storage {
  private journal: FileHandle | null = null;
  /** The journal being opened: appends that overlap on a fresh storage share one handle. */
  private opening: Promise<FileHandle> | null = null;

  private constructor(readonly dir: string) {}

  /** Opens (and creates, mode 0700) a state directory. */
  static async create(dir: string): Promise<FsStorage> {
    try {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
      await chmod(dir, DIR_MODE);
    } catch (error) {
      throw ioError(`create the state directory ${dir}`, error);
    }
    return new FsStorage(dir);
  }

  /** Opens an existing state directory; NOT_ENROLLED when there is none. */
  static async open(dir: string): Promise<FsStorage> {
    try {
      if (!(await stat(dir)).isDirectory()) throw new ScannerError('STATE_IO', `${dir} is not a directory`);
    } catch (error) {
      if (error instanceof ScannerError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new ScannerError('NOT_ENROLLED', `no scanner state in ${dir}: run "ticket-scanner enroll" first`);
      }
      throw ioError(`open the state directory ${dir}`, error);
    }
    return new FsStorage(dir);
  }

  async appendJournal(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    try {
      const handle = await this.journalHandle();
      await handle.write(lines.map((line) => `${line}\n`).join(''));
      await handle.datasync();
    } catch (error) {
      throw ioError('write the scan journal', error);
    }
  }

  async readJournal(): Promise<string[]> {
    const data = await this.readBytes(JOURNAL);
    if (data === null) return [];
    const end = data.lastIndexOf(0x0a) + 1;
    const text = data.subarray(0, end).toString('utf8');
    return text === '' ? [] : text.slice(0, -1).split('\n');
  }

  async replaceJournal(lines: readonly string[]): Promise<void> {
    await this.closeJournal();
    await this.writeFileAtomic(JOURNAL, lines.map((line) => `${line}\n`).join(''));
  }

  async appendLog(name: string, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    const path = join(this.dir, name);
    let handle: FileHandle | undefined;
    try {
      const existed = await exists(path);
      handle = await open(path, 'a', FILE_MODE);
      await handle.write(lines.map((line) => `${line}\n`).join(''));
      await handle.datasync();
      if (!existed) await syncDirectory(this.dir);
    } catch (error) {
      throw ioError(`write ${name}`, error);
    } finally {
      await handle?.close();
    }
  }

  async writeFileAtomic(name: string, data: string): Promise<void> {
    const path = join(this.dir, name);
    const temp = join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // Created 0600 by open itself: the file is never readable by others, not even for a moment.
      const handle = await open(temp, 'wx', FILE_MODE);
      try {
        await handle.write(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
      await syncDirectory(this.dir);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw ioError(`write ${name}`, error);
    }
  }

  async readFile(name: string): Promise<string | null> {
    const data = await this.readBytes(name);
    return data === null ? null : data.toString('utf8');
  }

  async lock(): Promise<() => Promise<void>> {
    let release: () => Promise<void>;
    try {
      release = await lockDirectory(this.dir);
    } catch (error) {
      if (error instanceof ScannerError) throw error;
      throw ioError('lock the state directory', error);
    }
    return async () => {
      await this.closeJournal();
      await release();
    };
  }

  /** The journal opened for appending; a torn last line from a killed writer is cut off first. */
  private journalHandle(): Promise<FileHandle> {
    if (this.journal) return Promise.resolve(this.journal);
    this.opening ??= this.openJournal().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async openJournal(): Promise<FileHandle> {
    const path = join(this.dir, JOURNAL);
    const existed = await exists(path);
    const handle = await open(path, 'a+', FILE_MODE);
    if (existed) {
      const { size } = await handle.stat();
      const data = size === 0 ? Buffer.alloc(0) : await readFile(path);
      const end = data.lastIndexOf(0x0a) + 1;
      if (end !== data.length) {
        await handle.truncate(end);
        await handle.sync();
      }
    } else {
      await syncDirectory(this.dir);
    }
    this.journal = handle;
    return handle;
  }

  /** Closes the journal's file handle (the lock's release does it too). */
  async close(): Promise<void> {
    await this.closeJournal();
  }

  private async closeJournal(): Promise<void> {
    await this.opening?.catch(() => undefined);
    const handle = this.journal;
    this.journal = null;
    await handle?.close();
  }

  private async readBytes(name: string): Promise<Buffer | null> {
    try {
      return await readFile(join(this.dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw ioError(`read ${name}`, error);
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
