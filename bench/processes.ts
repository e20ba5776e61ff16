/** The processes a benchmark measures: the bare floor, issuers on SQLite or PostgreSQL, and their memory. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Issuer } from '../packages/scanner/test/issuer.ts';
import { withoutRateLimits } from '../src/config-limits.ts';

/** The bare node:http server in a process of its own; resolves with its URL and a way to stop it. */
export async function startBare(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const port = Number(chunk.toString().trim());
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The most resident memory a process has had so far (VmHWM), in bytes; null where /proc is absent. */
export function peakRss(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time a process has used so far (user and system, every thread), in seconds; null where /proc is absent. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh PostgreSQL database for one run, or null when no server answers. */
export async function freshPostgres(): Promise<{
  url: string;
  drop: () => Promise<void>;
  backendCpuSeconds: () => Promise<number>;
} | null> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `issuer_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
    // The CPU time of the server's backends now connected to the database (the server runs on this
    // machine: its processes' /proc entries), what the issuer's statements cost on the database side.
    backendCpuSeconds: async () => {
      const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
        name,
      ]);
      return rows.reduce((sum, { pid }) => sum + (cpuSeconds(pid) ?? Number.NaN), 0);
    },
  };
}

/** Rate limits out of the way: the benchmark measures the issuer, not its throttle. */
const UNLIMITED = withoutRateLimits();
const THIS_CHECKOUT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The variables and node options of a checkout's start script (`NAME=value exec node <options>
 * scripts/start.js` in its package.json): what `npm start` runs there. None for a start script of
 * another shape (an older commit's).
 */
export function startScriptOf(root = THIS_CHECKOUT): { env: Record<string, string>; options: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const parts = /^((?:\w+=\S+ )*)(?:exec )?node((?: --\S+)*) scripts\/start\.js$/.exec(scripts.start);
  if (!parts) return { env: {}, options: [] };
  const words = (text: string) => text.trim().split(' ').filter(Boolean);
  return {
    env: Object.fromEntries(words(parts[1]!).map((assignment) => assignment.split('=') as [string, string])),
    options: words(parts[2]!),
  };
}

/**
 * A real issuer process, run as `npm start` runs it (the compiled build in dist/, with the start
 * script's variables and node options), on SQLite (a temporary file) or on the given database, with
 * `extra` settings on top; from `root` (another checkout, built, run as its own start script says)
 * when given, with `nodeArgs` after the start script's options (a profiler's flags).
 */
export function startIssuer(
  databaseUrl: string | null,
  extra: Record<string, string> = {},
  root?: string,
  nodeArgs: string[] = [],
): Promise<Issuer> {
  const start = startScriptOf(root);
  const env = {
    ...start.env,
    ...UNLIMITED,
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extra,
  };
  // A machine others load may take long to start a process: a benchmark waits rather than fails.
  return Issuer.start(env, root, { built: true, nodeArgs: [...start.options, ...nodeArgs], startTimeoutMs: 120_000 });
}

/** A scanner enrolled in `eid` through the API, as an app would be: its bearer header and its scanner_id. */
export async function scannerOf(issuer: Issuer, eid: string): Promise<{ headers: Record<string, string>; id: string }> {
  const token = new URL(await issuer.setupUri(eid)).searchParams.get('token')!;
  const id = randomUUID();
  const res = await fetch(`${issuer.url}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, scanner_id: id }),
  });
  const { api_key } = (await res.json()) as { api_key: string };
  return { headers: { authorization: `Bearer ${api_key}` }, id };
}
