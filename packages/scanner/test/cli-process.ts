import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT } from './issuer.ts';

const CLI = join(REPO_ROOT, 'packages/scanner/bin/ticket-scanner.js');

/** The outcome of one CLI run. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The stdout lines parsed as JSON. */
  json: Record<string, unknown>[];
}

/** Runs `ticket-scanner` as a child process from the repository root. */
export async function runCli(args: string[], options: { stdin?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  const json = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, signal, stdout, stderr, json };
}

/** A `ticket-scanner` process whose stdin stays open: feed it lines, read its output lines as they come. */
export class LiveCli {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (this.buffer + chunk.toString()).split('\n');
      this.buffer = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Writes one line to stdin. */
  write(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Waits until at least `count` lines have been printed. */
  async waitForLines(count: number, timeoutMs = 20_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < count) {
      if (Date.now() > deadline) throw new Error(`waited for ${count} lines, got ${this.lines.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.lines;
  }

  /** Sends one token and returns its verdict line (JSON) and how long it took. */
  async scan(token: string): Promise<{ verdict: Record<string, unknown>; ms: number }> {
    const started = Date.now();
    this.write(token);
    const lines = await this.waitForLines(this.lines.length + 1);
    return { verdict: JSON.parse(lines.at(-1)!) as Record<string, unknown>, ms: Date.now() - started };
  }

  /** Closes stdin and waits for the exit code. */
  async end(): Promise<number | null> {
    this.child.stdin!.end();
    const [code] = (await once(this.child, 'close')) as [number | null];
    return code;
  }

  /** kill -9. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await once(this.child, 'close');
  }
}
