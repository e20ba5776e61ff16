import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server.ts';

/**
 * A PostgreSQL server of the test's own (initdb into a temporary folder, on a free port), so that a
 * test may restart or stop it under load without touching the server other tests share. Debian's
 * `pg_ctlcluster … restart` is `pg_ctl restart` on a cluster; this is the same on a private one.
 */
export class PrivatePostgres {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** Why a private server cannot be made here (no PostgreSQL binaries), or null. */
  static unavailableBecause(): string | null {
    return binDir() === null ? 'no PostgreSQL server binaries under /usr/lib/postgresql' : null;
  }

  /** Creates and starts the server; its `url` names database `postgres`, user `postgres`, trust auth. */
  static async start(): Promise<PrivatePostgres> {
    const bin = binDir();
    if (bin === null) throw new Error('no PostgreSQL server binaries');
    const dir = mkdtempSync(join(tmpdir(), 'issuer-pg-'));
    const server = new PrivatePostgres(bin, dir, await freePort());
    if (process.getuid?.() === 0) {
      // initdb refuses to run as root; the cluster belongs to the postgres user, as Debian's do.
      const pgUser = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const pgGroup = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, pgUser, pgGroup);
    }
    await server.run('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await server.pgCtl('start');
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Restarts the server the way an operator would (`fast`: sessions are ended) or as after a crash (`immediate`). */
  /** Resolves once the server accepts connections again; the event loop runs meanwhile. */
  restart(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    return this.pgCtl('restart', ['-m', mode]);
  }

  /** Stops the server and removes its files. */
  async destroy(): Promise<void> {
    await this.pgCtl('stop', ['-m', 'immediate']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pgCtl(action: string, extra: string[] = []): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    return this.run('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-o',
      options,
      '-l',
      join(this.dir, 'log'),
      '-w',
      ...extra,
      action,
    ]);
  }

  private async run(tool: string, args: string[]): Promise<void> {
    const command = join(this.bin, tool);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', command, ...args]);
    else await run(command, args);
  }
}

const run = promisify(execFile);

/** The newest installed server's bin folder, or null. */
function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}
