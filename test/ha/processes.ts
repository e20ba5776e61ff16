/**
 * The processes of a cluster on one machine, all of them inside one run directory: each is started
 * with its working directory there (PostgreSQL and Redis move into their data directories, which are
 * there too), so "every process whose working directory is inside the run directory" names exactly
 * this cluster's processes, PostgreSQL's children included, and never anyone else's. That is how the
 * cluster is ended, by the test or, should the test's process die first, by a watcher started with it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../helpers/eventually.ts';

/** A system account: its ids. */
export function account(name: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', name]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', name]).toString().trim()),
  };
}

export class RunDirectory {
  readonly path: string;
  private readonly watcher: ChildProcess;

  constructor(prefix: string) {
    this.path = mkdtempSync(join(tmpdir(), prefix));
    // Its parts run as different accounts (postgres, the issuers' user): each must reach its own directory.
    chmodSync(this.path, 0o755);
    // Ends the cluster if this process dies without doing so (a crash, a runner's SIGKILL).
    const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done
for round in 1 2 3; do for p in /proc/[0-9]*; do case "$(readlink "$p/cwd" 2>/dev/null)" in
"$0"|"$0"/*) kill -9 "\${p#/proc/}" 2>/dev/null;; esac; done; sleep 1; done
rm -rf "$0"`;
    this.watcher = spawn('sh', ['-c', script, this.path], { detached: true, stdio: 'ignore', cwd: '/' });
    this.watcher.unref();
  }

  /** A directory inside the run directory (made, and given to `owner` when set). */
  dir(name: string, owner?: { uid: number; gid: number }): string {
    const path = join(this.path, name);
    mkdirSync(path, { recursive: true });
    if (owner) chownSync(path, owner.uid, owner.gid);
    return path;
  }

  /**
   * Starts `command` in `cwd` (inside the run directory), its output appended to `<name>.log` there.
   * `as`: the account to run it as (setpriv: no further groups, no new privileges).
   */
  start(
    name: string,
    command: string,
    args: string[],
    options: { cwd: string; env?: Record<string, string>; as?: string },
  ): ChildProcess {
    const log = openSync(join(this.path, `${name}.log`), 'a');
    const [file, argv] = options.as
      ? [
          'setpriv',
          [
            `--reuid=${options.as}`,
            `--regid=${account(options.as).gid}`,
            '--clear-groups',
            '--no-new-privs',
            '--',
            command,
            ...args,
          ],
        ]
      : [command, args];
    const child = spawn(file, argv, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    child.on('error', () => undefined);
    return child;
  }

  /** The last lines of a process's log, for a failure message. */
  logTail(name: string, lines = 30): string {
    try {
      return readFileSync(join(this.path, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Every process whose working directory is `dir` or inside it. */
  processesIn(dir: string): number[] {
    const found: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cwd = readlinkSync(`/proc/${entry}/cwd`);
        if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(entry));
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return found;
  }

  /**
   * Kills every process working inside `dir` at one instant, as a machine that loses power: all are
   * stopped first (none can notice the others' death and react), then killed.
   */
  async killAllIn(dir: string): Promise<number> {
    const pids = this.processesIn(dir);
    for (const pid of pids) signal(pid, 'SIGSTOP');
    for (const pid of pids) signal(pid, 'SIGKILL');
    for (let waited = 0; waited < 5000 && pids.some(alive); waited += 50) await sleep(50);
    return pids.length;
  }

  /** Ends every process of the cluster and removes the run directory. */
  async destroy(): Promise<void> {
    for (let round = 0; round < 20; round += 1) {
      if ((await this.killAllIn(this.path)) === 0) break;
    }
    rmSync(this.path, { recursive: true, force: true });
    if (this.watcher.pid !== undefined) signal(this.watcher.pid, 'SIGKILL');
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Whether a process still runs (a zombie has ended: it only waits to be reaped). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until `check` answers true (it may throw meanwhile), looking every 200 ms, or fails naming `what`. */
export const until = (what: string, check: () => Promise<boolean> | boolean, timeoutMs: number) =>
  eventually(what, check, timeoutMs, 200);
