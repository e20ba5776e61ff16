/**
 * The issuer over real HTTP, beside a bare node:http server measured in the same run: check-in
 * throughput and latency at 50 connections on SQLite and PostgreSQL, an event of 1,000,000 tickets
 * beside one of 100,000, the offline-sync storm, and the issuer's peak resident memory. Every
 * throughput is also a ratio of the bare floor, because the machine's own speed varies.
 * Run: npm run bench (or node --import tsx bench/http.ts [sqlite|postgres]…). Prints; never fails.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Issuer } from '../packages/scanner/test/issuer.ts';
import { load, type LoadResult } from './load.ts';
import { cpuSeconds, freshPostgres, peakRss, scannerOf, startBare, startIssuer } from './processes.ts';
import { syncStorm, type StormResult } from './storm.ts';

const CONNECTIONS = 50;
const CHECK_INS = Number(process.env.BENCH_CHECK_INS ?? 20_000);
const SMALL_EVENT = 100_000;
const LARGE_EVENT = Number(process.env.BENCH_LARGE_EVENT ?? 1_000_000);
const STORM = { scanners: 20, perScanner: 500 };
const BATCH = 10_000;

interface Ticket {
  tid: string;
  token: string;
}

/** Issues `count` tickets in batches; keeps every `keepEvery`-th one (enough to scan, spread over the event). */
async function seed(issuer: Issuer, eid: string, count: number, keepEvery: number): Promise<Ticket[]> {
  const kept: Ticket[] = [];
  for (let issued = 0; issued < count; issued += BATCH) {
    const batch = await issuer.issue(eid, Math.min(BATCH, count - issued));
    batch.forEach((ticket, i) => {
      if ((issued + i) % keepEvery === 0) kept.push(ticket);
    });
  }
  return kept;
}

/** First scans of distinct tickets, CONNECTIONS at a time; with their tokens when `signed`. */
function checkIns(
  issuer: Issuer,
  eid: string,
  scanner: { headers: Record<string, string>; id: string },
  tickets: Ticket[],
  signed: boolean,
) {
  return load({
    url: `${issuer.url}/api/v1/tickets/check-in`,
    connections: CONNECTIONS,
    amount: tickets.length,
    method: 'POST',
    headers: scanner.headers,
    body: (i) => ({
      tid: tickets[i]!.tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.id,
      idempotency_key: randomUUID(),
      ...(signed ? { ticket_token: tickets[i]!.token } : {}),
    }),
  });
}

interface BackendFigures {
  backend: string;
  /** The bare floor, measured just before and just after this backend's check-ins. */
  bare: LoadResult[];
  plain: LoadResult;
  signed: LoadResult;
  large: LoadResult;
  storm: StormResult;
  /** CPU seconds the issuer spent on the storm (uploads and feed pulls), every thread. */
  stormCpu: number | null;
  /** Peak resident memory of the issuer while issuing the tickets, and of a fresh one serving check-ins and the storm. */
  seedingRss: number | null;
  peakRss: number | null;
  seedSeconds: number;
}

async function measureBackend(
  backend: 'sqlite' | 'postgres',
  measureBare: () => Promise<LoadResult>,
): Promise<BackendFigures | null> {
  const database = backend === 'postgres' ? await freshPostgres() : null;
  if (backend === 'postgres' && !database) {
    process.stdout.write('PostgreSQL: no server reachable, skipped\n');
    return null;
  }
  const issuer = await startIssuer(database?.url ?? null);
  try {
    const seedStarted = Date.now();
    const small = await issuer.createEvent('Benchmark, 100,000 tickets');
    const smallTickets = await seed(issuer, small, SMALL_EVENT, 1);
    const large = await issuer.createEvent('Benchmark, 1,000,000 tickets');
    const largeTickets = await seed(issuer, large, LARGE_EVENT, Math.max(1, Math.floor(LARGE_EVENT / CHECK_INS)));
    // The storm's own event: its feed then holds the storm's check-ins only, as at a real gate re-opening.
    const stormEvent = await issuer.createEvent('Benchmark, sync storm');
    const stormTickets = await seed(issuer, stormEvent, STORM.scanners * STORM.perScanner, 1);
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const seedingRss = peakRss(issuer.pid);
    // A fresh process serves the check-ins: what it holds is what serving takes, not what issuing
    // 1,100,000 tickets left behind. Dirty pages are flushed first, so that no write-back competes.
    await issuer.stop('SIGTERM');
    execFileSync('sync');
    await issuer.restart();
    const smallScanner = await scannerOf(issuer, small);
    const largeScanner = await scannerOf(issuer, large);
    // Warm-up: JIT and connections, on tickets that are not measured afterwards.
    const pool = smallTickets.slice();
    await checkIns(issuer, small, smallScanner, pool.splice(0, 2_000), false);
    const bareBefore = await measureBare();
    const plain = await checkIns(issuer, small, smallScanner, pool.splice(0, CHECK_INS), false);
    const signed = await checkIns(issuer, small, smallScanner, pool.splice(0, CHECK_INS / 2), true);
    const largeRun = await checkIns(issuer, large, largeScanner, largeTickets.slice(0, CHECK_INS), false);
    const bareAfter = await measureBare();
    const cpuBefore = cpuSeconds(issuer.pid);
    const storm = await syncStorm(
      issuer,
      stormEvent,
      stormTickets.map((t) => t.token),
      STORM.scanners,
      STORM.perScanner,
    );
    const cpuAfter = cpuSeconds(issuer.pid);
    const stormCpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    const after = peakRss(issuer.pid);
    const bare = [bareBefore, bareAfter];
    return { backend, bare, plain, signed, large: largeRun, storm, stormCpu, seedingRss, peakRss: after, seedSeconds };
  } finally {
    await issuer.stop();
    rmSync(issuer.dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${Math.round(bytes / 1024 / 1024)} MiB`);

function report(figures: BackendFigures[]): void {
  const out: string[] = [];
  out.push(`\nIssuer over HTTP: ${CONNECTIONS} connections, autocannon in the benchmark process\n`);
  out.push('| what | throughput | ratio to bare | p50 | p99 | errors |', '|---|---|---|---|---|---|');
  for (const f of figures) {
    const floor = f.bare.reduce((sum, r) => sum + r.rate, 0) / f.bare.length;
    const row = (what: string, r: LoadResult) =>
      out.push(
        `| ${what} | ${r.rate.toFixed(0)} req/s | ${(r.rate / floor).toFixed(3)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.non2xx + r.errors} |`,
      );
    f.bare.forEach((r, i) => row(`${f.backend}: bare node:http (floor, ${i === 0 ? 'before' : 'after'})`, r));
    row(`${f.backend}: check-in, first scan (${SMALL_EVENT.toLocaleString('en')} tickets)`, f.plain);
    row(`${f.backend}: check-in with ticket_token`, f.signed);
    row(`${f.backend}: check-in, first scan (${LARGE_EVENT.toLocaleString('en')} tickets)`, f.large);
  }
  out.push(
    '',
    '| backend | large / small event | sync storm | storm outcomes | peak RSS under check-ins | peak RSS issuing | issuing |',
    '|---|---|---|---|---|---|---|',
  );
  for (const f of figures) {
    const s = f.storm;
    const outcomes = Object.entries(s.outcomes)
      .filter(([, n]) => n > 0)
      .map(([o, n]) => `${o} ${n}`)
      .join(', ');
    out.push(
      `| ${f.backend} | ${(f.large.rate / f.plain.rate).toFixed(2)} | ${s.scans} scans (${STORM.scanners} × ${STORM.perScanner}) uploaded in ${s.uploadMs} ms, synced in ${s.ms} ms; issuer CPU ${f.stormCpu === null ? 'n/a' : `${f.stormCpu.toFixed(1)} s`} | ${outcomes}; refused ${s.refused}, left ${s.remaining} | ${mib(f.peakRss)} | ${mib(f.seedingRss)} | ${f.seedSeconds.toFixed(0)} s |`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

const backends = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'postgres']) as (
  'sqlite' | 'postgres'
)[];
const bareServer = await startBare();
const bareBody = (i: number) => ({
  tid: `t${i}`,
  eid: 'e',
  scanned_at: new Date().toISOString(),
  scanner_id: 's',
  idempotency_key: randomUUID(),
});
const measureBare = () =>
  load({ url: bareServer.url, connections: CONNECTIONS, amount: CHECK_INS * 3, method: 'POST', body: bareBody });
const figures: BackendFigures[] = [];
try {
  await measureBare();
  for (const backend of backends) {
    const measured = await measureBackend(backend, measureBare);
    if (measured) figures.push(measured);
  }
} finally {
  await bareServer.stop();
}
report(figures);
