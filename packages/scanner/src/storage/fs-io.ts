/** What the file-system Storage's parts share: modes, typed I/O errors, directory flushes. */
import { constants } from 'node:fs';
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { ScannerError } from '../errors.ts';

/** Owner only: the state holds an API key and the device's scans. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Wraps a file-system failure in a typed error naming the file (never its content). */
export function ioError(what: string, error: unknown): ScannerError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new ScannerError('STATE_IO', `cannot ${what}: ${code}`, { cause: error });
}

/** Flushes a directory so that a rename or a new file in it survives a crash. */
export async function syncDirectory(dir: string): Promise<void> {
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

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A file's bytes, or null when it does not exist; `name` names it in a failure. */
export async function readBytes(path: string, name: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(`read ${name}`, error);
  }
}
