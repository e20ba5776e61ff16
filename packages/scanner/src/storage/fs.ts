import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ScannerError } from '../errors.ts';
import { DIR_MODE, exists, FILE_MODE, ioError, readBytes, syncDirectory } from './fs-io.ts';
import { FsJournal } from './fs-journal.ts';
import { lockDirectory } from './fs-lock.ts';
import { JOURNALS, type JournalName, type Storage } from './storage.ts';

/**
 * The Node file-system Storage: one directory (mode 0700), files of mode 0600, every write flushed
 * with fsync before it returns, whole-file replacement by write-to-temp, fsync, rename, fsync of the
 * directory. Each journal is a file of its own, append-only; a torn last line is cut off before the
 * next append.
 */
export class FsStorage implements Storage {
  private readonly journals = new Map<JournalName, FsJournal>();

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

  async appendJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    await this.journal(journal).append(lines);
  }

  async readJournal(journal: JournalName = JOURNALS.scans): Promise<string[]> {
    return this.journal(journal).read();
  }

  async replaceJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    await this.journal(journal).close();
    await this.writeFileAtomic(journal, lines.map((line) => `${line}\n`).join(''));
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
    const data = await readBytes(join(this.dir, name), name);
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
      await this.close();
      await release();
    };
  }

  /** Closes the journals' file handles (the lock's release does it too). */
  async close(): Promise<void> {
    for (const journal of this.journals.values()) await journal.close();
  }

  private journal(name: JournalName): FsJournal {
    let journal = this.journals.get(name);
    if (!journal) {
      const what = name === JOURNALS.scans ? 'the scan journal' : name;
      this.journals.set(name, (journal = new FsJournal(this.dir, name, what)));
    }
    return journal;
  }
}
