/**
 * How long `ticket-scanner sync` takes to upload a large offline queue to a local issuer, beside a
 * floor: the same number of bare check-ins sent over kept-alive node:http connections with as many
 * in flight, nothing stored, measured before and after. The ratio is what the scanner adds; machines
 * vary, ratios hold. The machine's speed drifts from one minute to the next, so the scan and the sync
 * run several rounds, each on fresh tickets, and the median is the figure. Then the contract's
 * figure: the same queue synced with the issuer's default settings (its rate limits included), on
 * SQLite and on PostgreSQL (skipped when no server answers), target at most 30 s.
 * Run: node --import tsx packages/scanner/bench/sync.ts [count] [rounds]   (default 10,000 and 3)
 */
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { freshPostgres } from '../../../bench/processes.ts';
import { loadConfig } from '../../../src/config.ts';
import { SYNC_IN_FLIGHT } from '../src/sync.ts';
import { runCli } from '../test/cli-process.ts';
import type { Issuer } from '../test/issuer.ts';
import { issue, median, setUp, type SyncRound, syncRound, type Ticket } from './rounds.ts';

const count = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);

/** Bare check-ins: one request each on kept-alive connections, SYNC_IN_FLIGHT at a time, nothing stored. */
async function floor(issuer: Issuer, eid: string, dir: string, tickets: Ticket[]): Promise<number> {
  const { api_key } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
  const { scanner_id } = JSON.parse(readFileSync(join(dir, 'scanner.json'), 'utf8')) as { scanner_id: string };
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL(`${issuer.url}/api/v1/tickets/check-in`);
  const send = (t: Ticket) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        tid: t.tid,
        eid,
        scanner_id,
        scanned_at: new Date().toISOString(),
        idempotency_key: crypto.randomUUID(),
        ticket_token: t.token,
      });
      const headers = {
        authorization: `Bearer ${api_key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      };
      http
        .request(url, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        })
        .on('error', reject)
        .end(body);
    });
  let next = 0;
  const worker = async () => {
    while (next < tickets.length) await send(tickets[next++]!);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: SYNC_IN_FLIGHT }, worker));
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

const rate = (ms: number) => `${Math.round((count / ms) * 1000)}/s`;
const ms = (value: number) => `${Math.round(value)} ms`;

const setup = await setUp('Sync benchmark');
const { issuer, eid, dir } = setup;
try {
  // The floor before, which also warms the issuer up; a sync of an empty queue then moves the
  // scanner's feed cursor past those check-ins, so that each round pulls only its own.
  const floorBefore = await floor(issuer, eid, dir, await issue(issuer, eid, count));
  await runCli(['sync', '--state', dir], { timeoutMs: 300_000 });

  const results: SyncRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const result = await syncRound(setup, count);
    const { scanMs, syncMs, cpu } = result;
    results.push(result);
    process.stdout.write(
      `round ${round}: offline scan ${ms(scanMs)} (${((scanMs / count) * 1000).toFixed(0)} µs a scan); ` +
        `sync ${ms(syncMs)} (${rate(syncMs)}), issuer CPU ${cpu.toFixed(1)} s\n`,
    );
  }
  const floorAfter = await floor(issuer, eid, dir, await issue(issuer, eid, count));
  const floorMs = (floorBefore + floorAfter) / 2;
  const syncMs = median(results.map((r) => r.syncMs));
  const scanMs = median(results.map((r) => r.scanMs));
  process.stdout.write(
    `${count} scans, ${SYNC_IN_FLIGHT} in flight, median of ${rounds} rounds:\n` +
      `  offline scan (each verdict durably queued before it is printed): ${ms(scanMs)}, ` +
      `${((scanMs / count) * 1000).toFixed(0)} µs a scan\n` +
      `  bare check-ins over node:http (floor): ${ms(floorBefore)} before, ${ms(floorAfter)} after (${rate(floorMs)})\n` +
      `  ticket-scanner sync: ${ms(syncMs)} (${rate(syncMs)}), ${(syncMs / floorMs).toFixed(2)} of the floor's time\n` +
      `  last sync's report: ${results.at(-1)!.report}\n`,
  );
} finally {
  await issuer.stop();
  rmSync(issuer.dataDir, { recursive: true, force: true });
}

/** The issuer's own rate limits, as an unconfigured issuer has them (the test harness raises them). */
function defaultLimits(): Record<string, string> {
  const limits = loadConfig({}).rateLimits;
  return {
    RATE_LIMIT_ENROLL_PER_IP: String(limits.enrollPerIp),
    RATE_LIMIT_ENROLL_PER_TOKEN: String(limits.enrollPerToken),
    RATE_LIMIT_CHECKIN_PER_KEY: String(limits.checkInPerKey),
    RATE_LIMIT_STATUS_PER_KEY: String(limits.statusPerKey),
    RATE_LIMIT_ADMIN_PER_TOKEN: String(limits.adminPerToken),
    RATE_LIMIT_NOT_FOUND_PER_IP: String(limits.unknownRoutePerIp),
    RATE_LIMIT_AUTH_FAILURES_PER_IP: String(limits.authFailuresPerIp),
    RATE_LIMIT_WINDOW_S: String(limits.windowSeconds),
  };
}

/** One queue of `count` offline scans synced with the default settings on a backend; a line of the table. */
async function withDefaults(backend: 'SQLite' | 'PostgreSQL'): Promise<string> {
  const database = backend === 'PostgreSQL' ? await freshPostgres() : null;
  if (backend === 'PostgreSQL' && database === null) return `  ${backend}: skipped (no PostgreSQL server answers)\n`;
  const env = { ...defaultLimits(), ...(database ? { DATABASE_URL: database.url } : {}) };
  const setup = await setUp(`Default settings on ${backend}`, undefined, env);
  try {
    const { syncMs, cpu, report } = await syncRound(setup, count);
    const verdict = syncMs <= 30_000 ? 'met' : 'NOT met';
    return (
      `  ${backend}: sync ${ms(syncMs)} (${rate(syncMs)}), issuer CPU ${cpu.toFixed(1)} s; target 30 s ${verdict}\n` +
      `    report: ${report}\n`
    );
  } finally {
    await setup.issuer.stop();
    rmSync(setup.issuer.dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

const limits = defaultLimits();
process.stdout.write(
  `${count} offline scans synced with the default settings (RATE_LIMIT_CHECKIN_PER_KEY ${limits.RATE_LIMIT_CHECKIN_PER_KEY} ` +
    `per ${limits.RATE_LIMIT_WINDOW_S} s), target at most 30 s:\n`,
);
for (const backend of ['SQLite', 'PostgreSQL'] as const) process.stdout.write(await withDefaults(backend));
