import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { exists, FILE_MODE, ioError, readBytes, syncDirectory } from './fs-io.ts';

/**
 * One append-only journal file of a state directory, kept open for appending: each append is flushed
 * with `fdatasync` before it resolves; a torn last line (a writer killed mid-write) is left out when
 * read, and cut off before the next append. Replacing it is the storage's atomic file write, after
 * `close`.
 */
export class FsJournal {
  private handle: FileHandle | null = null;
  /** The file being opened: appends that overlap on a fresh storage share one handle. */
  private opening: Promise<FileHandle> | null = null;

  /** `what`: the journal in a failure's message (e.g. "the scan journal"). */
  constructor(
    private readonly dir: string,
    readonly file: string,
    private readonly what: string,
  ) {}

  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    try {
      const handle = await this.handleForAppend();
      await handle.write(lines.map((line) => `${line}\n`).join(''));
      await handle.datasync();
    } catch (error) {
      throw ioError(`write ${this.what}`, error);
    }
  }

  async read(): Promise<string[]> {
    const data = await readBytes(join(this.dir, this.file), this.file);
    if (data === null) return [];
    const end = data.lastIndexOf(0x0a) + 1;
    const text = data.subarray(0, end).toString('utf8');
    return text === '' ? [] : text.slice(0, -1).split('\n');
  }

  /** Closes the file's handle (before it is replaced, and when the lock is given back). */
  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }

  /** The file opened for appending; a torn last line from a killed writer is cut off first. */
  private handleForAppend(): Promise<FileHandle> {
    if (this.handle) return Promise.resolve(this.handle);
    this.opening ??= this.openForAppend().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async openForAppend(): Promise<FileHandle> {
    const path = join(this.dir, this.file);
    const existed = await exists(path);
    const handle = await open(path, 'a+', FILE_MODE);
    if (existed) {
      const { size } = await handle.stat();
      const end = await completeLinesEnd(handle, size);
      if (end !== size) {
        await handle.truncate(end);
        await handle.sync();
      }
    } else {
      await syncDirectory(this.dir);
    }
    this.handle = handle;
    return handle;
  }
}

/** Where a file's complete lines end: after its last newline, found reading back from the end. */
async function completeLinesEnd(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}
