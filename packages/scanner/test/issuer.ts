import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the issuer and the CLI run from there. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Where the issuer runs from: this repository, or another checkout of it (to test against a fixed server). */
const ISSUER_ROOT = process.env.SCANNER_TEST_ISSUER_ROOT ?? REPO_ROOT;

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const KEY_ENCRYPTION_KEY = 'ab'.repeat(32);

/** Rate limits high enough that tests hit none unless they set their own. */
const GENEROUS_LIMITS: Record<string, string> = Object.fromEntries(
  [
    'RATE_LIMIT_ENROLL_PER_IP',
    'RATE_LIMIT_ENROLL_PER_TOKEN',
    'RATE_LIMIT_CHECKIN_PER_KEY',
    'RATE_LIMIT_STATUS_PER_KEY',
    'RATE_LIMIT_ADMIN_PER_TOKEN',
    'RATE_LIMIT_NOT_FOUND_PER_IP',
    'RATE_LIMIT_AUTH_FAILURES_PER_IP',
  ].map((name) => [name, '1000000']),
);

/** A free TCP port on 127.0.0.1 (BASE_URL must be known before the issuer starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** Every temporary directory this process made: removed when it exits, whatever the tests did. */
const madeDirs: string[] = [];
process.once('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory, removed when the process exits. */
export function tempDir(prefix = 'scanner-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/**
 * A real issuer process, restartable on the same port and database: its sources through tsx, or with
 * `built`, the compiled build as `npm start` runs it (scripts/start.js, dist/server.js).
 */
export class Issuer {
  private child: ChildProcess | null = null;
  private log = '';

  private constructor(
    readonly port: number,
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly root: string,
    private readonly built: boolean,
    /** Node's own flags before the script (a profiler's), for the next (re)start. */
    public nodeArgs: string[] = [],
    /** How long a (re)start may take before it counts as failed. */
    private readonly startTimeoutMs = 20_000,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The process id (to pause it with SIGSTOP: an issuer that accepts connections and never answers). */
  get pid(): number {
    return this.child!.pid!;
  }

  /** What the issuer wrote on stderr and stdout. */
  get output(): string {
    return this.log;
  }

  /**
   * Starts an issuer on a free port with a fresh SQLite database, from `root` (another checkout of
   * the repository, with its dependencies installed, to compare two versions) or from this one.
   */
  static async start(
    env: Record<string, string> = {},
    root = ISSUER_ROOT,
    options: { built?: boolean; nodeArgs?: string[]; startTimeoutMs?: number } = {},
  ): Promise<Issuer> {
    for (let attempt = 1; ; attempt++) {
      const issuer = new Issuer(
        await freePort(),
        tempDir('issuer-'),
        env,
        root,
        options.built ?? false,
        options.nodeArgs,
        options.startTimeoutMs,
      );
      try {
        await issuer.restart();
        return issuer;
      } catch (error) {
        // Another process may take the free port between our probe and the issuer's listen.
        if (attempt >= 3 || !issuer.output.includes('EADDRINUSE')) throw error;
      }
    }
  }

  /** (Re)starts the process on the same port and database and waits until it listens. */
  async restart(): Promise<void> {
    // Only this start's output tells that it listens: an earlier start said so too.
    const from = this.log.length;
    const args = [...this.nodeArgs, ...(this.built ? ['scripts/start.js'] : ['--import', 'tsx', 'src/server.ts'])];
    const child = spawn(process.execPath, args, {
      cwd: this.root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: String(this.port),
        HOST: '127.0.0.1',
        BASE_URL: this.url,
        DATABASE_URL: `sqlite:${join(this.dataDir, 'issuer.db')}`,
        ADMIN_TOKEN,
        KEY_ENCRYPTION_KEY,
        LOG_LEVEL: 'warn',
        ...GENEROUS_LIMITS,
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.child === child) this.log += `\n[issuer process ended unexpectedly: code ${code}, signal ${signal}]\n`;
    });
    const collect = (chunk: Buffer) => (this.log += chunk.toString());
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`issuer did not start:\n${this.log}`)), this.startTimeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`issuer exited with ${code}:\n${this.log}`));
      });
      child.stderr!.on('data', () => {
        if (this.log.slice(from).includes('Ticket issuer listening on')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }

  /** Stops the process (SIGKILL by default: the issuer simply vanishes, as on a network cut). */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** Calls the admin API; throws on a non-2xx answer. */
  async admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** A new event dated tomorrow. */
  async createEvent(name = 'Scanner test event'): Promise<string> {
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const event = await this.admin<{ eid: string }>('POST', '/admin/v1/events', { name, event_date: tomorrow });
    return event.eid;
  }

  /** Issues tickets; returns tid and token of each. */
  async issue(eid: string, count: number, extra: Record<string, unknown> = {}) {
    const tickets = Array.from({ length: count }, (_, i) => ({
      holder_name: `Holder ${i}`,
      ticket_type: 'GA',
      ...extra,
    }));
    const answer = await this.admin<{ tickets: { tid: string; ticket_token: string }[] }>(
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      { tickets },
    );
    return answer.tickets.map(({ tid, ticket_token }) => ({ tid, token: ticket_token }));
  }

  /** A setup URI for a new scanner of the event. */
  async setupUri(eid: string, gate?: string): Promise<string> {
    const answer = await this.admin<{ setup_uri: string }>(
      'POST',
      `/admin/v1/events/${eid}/enrollment-tokens`,
      gate === undefined ? {} : { gate_id: gate },
    );
    return answer.setup_uri;
  }

  /** An event's counters (issued, checked_in, revoked, conflicts), grouped under `counters` or flat. */
  async counters(eid: string): Promise<Record<string, number>> {
    const event = await this.admin<{ counters?: Record<string, number> } & Record<string, unknown>>(
      'GET',
      `/admin/v1/events/${eid}`,
    );
    return event.counters ?? (event as unknown as Record<string, number>);
  }

  /** The whole scan log of an event. */
  async scans(eid: string): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    let more = true;
    // Until has_more is false: the log always answers a next_cursor, to ask again later from there.
    while (more) {
      const query: string = cursor === null ? '?limit=1000' : `?limit=1000&cursor=${cursor}`;
      const page = await this.admin<{
        scans: Record<string, unknown>[];
        next_cursor: string | null;
        has_more: boolean;
      }>('GET', `/admin/v1/events/${eid}/scans${query}`);
      all.push(...page.scans);
      cursor = page.next_cursor;
      more = page.has_more && cursor !== null;
    }
    return all;
  }
}
