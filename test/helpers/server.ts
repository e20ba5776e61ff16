import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { eventually } from './eventually.ts';

export interface RunningServer {
  url: string;
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /**
   * Waits until stdout matches `pattern`. The log lines come on stdout, a pipe of their own: one
   * logged right after the listening line (stderr) may arrive after the start has resolved.
   */
  stdoutShows(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the real server on a free port and waits until it listens: its sources through tsx, or with
 * `built`, as `npm start` runs it (scripts/start.js: the compiled build in dist/, made again if stale),
 * from `root` (another copy of the project) or this one.
 */
export async function startServer(
  env: Record<string, string>,
  options: { built?: boolean; root?: string } = {},
): Promise<RunningServer> {
  const args = options.built ? ['scripts/start.js'] : ['--import', 'tsx', 'src/server.ts'];
  const child = spawn(process.execPath, args, {
    cwd: options.root ?? process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      BASE_URL: 'https://issuer.test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 20_000);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${err}`)));
    child.stderr!.on('data', () => {
      const match = /listening on (https?:\/\/[\d.:]+)/.exec(err);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    process: child,
    stdout: () => out,
    stderr: () => err,
    stdoutShows: (pattern, timeoutMs = 10_000) =>
      eventually(`stdout to show ${pattern}`, () => pattern.test(out), timeoutMs, 50).then(
        () => undefined,
        (error: Error) => {
          throw new Error(`${error.message}; it has:\n${out}`);
        },
      ),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

/** fetch with a JSON body and an optional bearer credential. */
export async function call(
  url: string,
  options: {
    method?: string;
    bearer?: string;
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> {
  const res = await fetch(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    text,
    headers: res.headers,
  };
}

/** A scanner enrolled in `eid` through the API, as a scanner app would be: a new id, an enrolment token, its key. */
export async function enrollScanner(
  base: string,
  admin: string,
  eid: string,
): Promise<{ scannerId: string; apiKey: string; apiKeyId: string; enrollmentToken: string }> {
  const token = await call(`${base}/admin/v1/events/${eid}/enrollment-tokens`, { bearer: admin, body: {} });
  const scannerId = randomUUID();
  const enrolled = await call(`${base}/api/v1/scanners/enroll`, {
    body: { token: token.body.token, scanner_id: scannerId },
  });
  return {
    scannerId,
    apiKey: String(enrolled.body.api_key),
    apiKeyId: String(enrolled.body.api_key_id),
    enrollmentToken: String(token.body.token),
  };
}

/** A TCP port free at this moment, for a server whose BASE_URL must name its own address. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
