import { createHash } from 'node:crypto';
import { readFile, realpath, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ScannerError } from '../errors.ts';

/** The file naming the lock's holder (its pid): for messages, and the lock itself where there is no kernel lock. */
const LOCK_FILE = 'lock';
const FILE_MODE = 0o600;
/** How long a command waits for a holder that is going away (a process being killed, or ending). */
const WAIT_MS = 1500;
const POLL_MS = 25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a process with this id is running. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid the lock file names, or null. */
async function holderPid(dir: string): Promise<number | null> {
  const holder = Number((await readFile(join(dir, LOCK_FILE), 'utf8').catch(() => '')).trim());
  return Number.isInteger(holder) && holder > 0 ? holder : null;
}

function inUse(dir: string, pid: number | null): ScannerError {
  const by = pid === null ? 'another ticket-scanner process' : `another ticket-scanner process (pid ${pid})`;
  return new ScannerError('STATE_IN_USE', `the state directory ${dir} is in use by ${by}`);
}

/**
 * Binds a Linux abstract-namespace socket named after the directory: the kernel releases it the
 * moment its process ends, however it ends (kill -9 included), and it leaves no file behind. Null
 * when another process holds it.
 */
async function bindAbstract(name: string): Promise<Server | null> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return null;
    throw error;
  }
  // Holding the lock must not keep the process alive.
  server.unref();
  return server;
}

/** The lock on Linux: the kernel's, held by a listening abstract socket. */
async function kernelLock(dir: string): Promise<() => Promise<void>> {
  const id = createHash('sha256')
    .update(await realpath(dir))
    .digest('hex')
    .slice(0, 40);
  const name = `\0ticket-scanner-state-${id}`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const server = await bindAbstract(name);
    if (server !== null) {
      // Informational only: whoever held it before may have died without removing it.
      await writeFile(join(dir, LOCK_FILE), String(process.pid), { mode: FILE_MODE });
      return async () => {
        await unlink(join(dir, LOCK_FILE)).catch(() => undefined);
        // Referenced again while it closes, or the process could end before the close completes.
        server.ref();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      };
    }
    if (Date.now() >= deadline) throw inUse(dir, await holderPid(dir));
    await sleep(POLL_MS);
  }
}

/**
 * The lock elsewhere: a file created exclusively, holding the writer's pid. A file whose process is
 * gone is taken over; a live holder is waited for a moment (it may be ending) before giving up.
 */
async function fileLock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx', mode: FILE_MODE });
      return async () => {
        await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await holderPid(dir);
    if (holder !== null && holder !== process.pid && isAlive(holder)) {
      if (Date.now() >= deadline) throw inUse(dir, holder);
      await sleep(POLL_MS);
      continue;
    }
    // Left behind by a process that died: take it over.
    await unlink(path).catch(() => undefined);
  }
}

/**
 * Takes the state directory's one-writer lock; resolves with its release. A lock left by a process
 * that died never blocks: on Linux the kernel releases it with the process; elsewhere a lock file
 * whose process is gone is taken over.
 */
export function lockDirectory(dir: string): Promise<() => Promise<void>> {
  return process.platform === 'linux' ? kernelLock(dir) : fileLock(dir);
}
