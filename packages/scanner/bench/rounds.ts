/**
 * What the sync benchmarks share: an issuer with one enrolled scanner, and a round of work on it
 * (fresh tickets scanned `--offline`, then one timed `ticket-scanner sync`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../test/cli-process.ts';
import { Issuer, tempDir } from '../test/issuer.ts';

export type Ticket = { tid: string; token: string };

/** An issuer process, one event on it, and the state folder of a scanner enrolled for that event. */
export interface SyncSetup {
  issuer: Issuer;
  eid: string;
  dir: string;
}

/** One round: how long the offline scans and the sync took, and the issuer's CPU during the sync. */
export interface SyncRound {
  scanMs: number;
  syncMs: number;
  /** CPU seconds the issuer process spent during the sync (NaN where /proc is not there). */
  cpu: number;
  /** The sync's JSON report line. */
  report: string;
}

/**
 * Starts an issuer (from `root`, another checkout, when given; with `env` over the tests' generous
 * rate limits) and enrols a scanner through the CLI.
 */
export async function setUp(name: string, root?: string, env: Record<string, string> = {}): Promise<SyncSetup> {
  const issuer = await Issuer.start(env, root);
  const eid = await issuer.createEvent(name);
  const dir = join(tempDir(), 'state');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir]);
  if (enrolled.code !== 0) throw new Error(enrolled.stderr);
  return { issuer, eid, dir };
}

/** Issues `n` tickets, 10,000 a request at most. */
export async function issue(issuer: Issuer, eid: string, n: number): Promise<Ticket[]> {
  const tickets = [];
  for (let i = 0; i < n; i += 10_000) tickets.push(...(await issuer.issue(eid, Math.min(10_000, n - i))));
  return tickets;
}

/** CPU seconds the issuer process has used so far (Linux), or NaN elsewhere. */
export function issuerCpu(issuer: Issuer): number {
  try {
    const fields = readFileSync(`/proc/${issuer.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** `count` fresh tickets scanned offline in one `scan` process, then one timed `sync` of them all. */
export async function syncRound({ issuer, eid, dir }: SyncSetup, count: number): Promise<SyncRound> {
  const tickets = await issue(issuer, eid, count);
  let started = performance.now();
  const scan = await runCli(['scan', '--offline', '--state', dir, '--json'], {
    stdin: tickets.map((t) => t.token).join('\n'),
    timeoutMs: 300_000,
  });
  const scanMs = performance.now() - started;
  if (scan.json.length !== count) throw new Error(`scanned ${scan.json.length} of ${count}: ${scan.stderr}`);
  const cpuBefore = issuerCpu(issuer);
  started = performance.now();
  const sync = await runCli(['sync', '--state', dir, '--json'], { timeoutMs: 300_000 });
  const syncMs = performance.now() - started;
  const cpu = issuerCpu(issuer) - cpuBefore;
  const report = sync.stdout.trim();
  const uploaded = (sync.json[0] as { uploaded?: number } | undefined)?.uploaded;
  if (sync.code !== 0 || uploaded !== count) throw new Error(`sync exit ${sync.code}: ${report} ${sync.stderr}`);
  return { scanMs, syncMs, cpu, report };
}

/** The middle value (the mean of the two middle ones when there is an even number). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
