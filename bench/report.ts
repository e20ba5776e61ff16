/**
 * The event report and the CSV exports at 1,000,000 tickets. An event (Asia/Kolkata) seeded straight
 * into the tables, SQLite on a temporary file (then a fresh PostgreSQL database when one answers and
 * BENCH_REPORT_POSTGRES is not 0): two ticket types, 900,000 holders let in at four gates over twelve
 * hours, a third of them out again an hour later, with the counts the write paths keep (the report's
 * tickets per type and holders per event day as migration 35 fills them, the exits and re-entries per
 * minute as migration 36 does). Measured over a real port, beside the bare node:http floor in the same
 * run: (1) the report, median and worst of its requests, and the store's part alone (target: a few
 * milliseconds); (2) each export, its rows per
 * second against a bare server streaming the same bytes, and the process's resident memory before
 * and at most while it streams (target: flat, whatever the size).
 *
 * Run: node --import tsx bench/report.ts   Prints tables; never fails. BENCH_REPORT_TICKETS sets the size,
 * BENCH_REPORT_EXPORTS which exports run (both, tickets, scans or none), BENCH_REPORT_SQLITE=0 and
 * BENCH_REPORT_POSTGRES=0 leave a store out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, type App, appOn, benchConfig, json, quantile } from './inject.ts';
import { freshPostgres, startBare } from './processes.ts';
import { BIG, ENTERED, type Raw, seed } from './report-seed.ts';

const REPORTS = 15;
/** Which exports to measure: both (default), `tickets`, `scans`, or `none` (the report alone). */
const EXPORTS = process.env.BENCH_REPORT_EXPORTS ?? 'both';
const config = benchConfig();
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-report-'));

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The highest resident memory, JS heap and memory outside the heap (Buffers) seen. */
interface Peaks {
  rss: number;
  heap: number;
  external: number;
}

const sample = (peaks: Peaks): Peaks => {
  const m = process.memoryUsage();
  return {
    rss: Math.max(peaks.rss, m.rss),
    heap: Math.max(peaks.heap, m.heapUsed),
    external: Math.max(peaks.external, m.external),
  };
};

/** GETs `url` and reads its body to the end: the bytes, and the highest memory seen meanwhile (sampled every 10 ms). */
async function drain(url: string, headers: Record<string, string> = {}): Promise<{ bytes: number; peaks: Peaks }> {
  let peaks = sample({ rss: 0, heap: 0, external: 0 });
  const sampler = setInterval(() => (peaks = sample(peaks)), 10);
  try {
    const bytes = await new Promise<number>((resolve, reject) => {
      http
        .get(url, { headers }, (res) => {
          let total = 0;
          res.on('data', (chunk: Buffer) => (total += chunk.length));
          res.on('end', () => (res.statusCode === 200 ? resolve(total) : reject(new Error(`${res.statusCode}`))));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    return { bytes, peaks: sample(peaks) };
  } finally {
    clearInterval(sampler);
  }
}

/** The floor of an export: a bare node:http server writing `rows` lines of `line`, with backpressure. */
async function bareCsv(rows: number, line: string): Promise<{ url: string; close: () => Promise<void> }> {
  const page = line.repeat(1000);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    let sent = 0;
    const more = () => {
      while (sent < rows) {
        sent += 1000;
        if (!res.write(page)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Result {
  report: number[];
  storeOnly: number[];
  bareGet: number[];
  /** An admin GET of the event itself: the route's own floor (authentication, one row, serialization). */
  eventGet: number[];
  exports: {
    name: string;
    rows: number;
    ms: number;
    bareMs: number;
    mb: number;
    before: NodeJS.MemoryUsage;
    peaks: Peaks;
  }[];
}

async function measure(store: Store, raw: Raw, postgres: boolean): Promise<Result> {
  const app: App = await appOn(config, store, false);
  const { eid } = await json<{ eid: string }>(
    app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: admin,
      payload: { name: 'Report bench', event_date: '2030-01-01T13:00:00Z', timezone: 'Asia/Kolkata' },
    }),
  );
  await seed(raw, eid, postgres);
  if (postgres) await raw('ANALYZE');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const bare = await startBare();
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers }).then(async (res) => {
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      return res.text();
    });
  const result: Result = { report: [], storeOnly: [], bareGet: [], eventGet: [], exports: [] };
  await get(`${base}/admin/v1/events/${eid}/report`, admin);
  for (let i = 0; i < REPORTS; i++) {
    result.bareGet.push(await timed(() => get(bare.url)));
    result.eventGet.push(await timed(() => get(`${base}/admin/v1/events/${eid}`, admin)));
    result.report.push(await timed(() => get(`${base}/admin/v1/events/${eid}/report`, admin)));
    result.storeOnly.push(await timed(() => store.reports.reportCounts(eid)));
  }
  await bare.stop();
  const files = [
    ['tickets.csv', BIG],
    ['scans.csv', ENTERED + Math.floor(ENTERED / 3)],
  ] as const;
  for (const [name, rows] of files.filter(([file]) => EXPORTS === 'both' || file.startsWith(EXPORTS))) {
    global.gc?.();
    const before = process.memoryUsage();
    let drained = { bytes: 0, peaks: { rss: 0, heap: 0, external: 0 } };
    const ms = await timed(async () => (drained = await drain(`${base}/admin/v1/events/${eid}/export/${name}`, admin)));
    const floor = await bareCsv(rows, 'x'.repeat(Math.max(1, Math.round(drained.bytes / rows) - 2)) + '\r\n');
    const bareMs = await timed(() => drain(floor.url));
    await floor.close();
    result.exports.push({ name, rows, ms, bareMs, mb: drained.bytes / 1e6, before, peaks: drained.peaks });
  }
  await app.close();
  return result;
}

const loadNow = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const results: { name: string; result: Result | null; load: string }[] = [];

if (process.env.BENCH_REPORT_SQLITE !== '0') {
  const sqlite = new SqliteStore(join(dir, 'report.db'));
  const sqliteDb = (sqlite as unknown as { ctx: { db: import('better-sqlite3').Database } }).ctx.db;
  results.push({
    name: 'SQLite',
    result: await measure(
      sqlite,
      async (sql) =>
        void sqliteDb.exec(
          `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${BIG}) ${sql}`,
        ),
      false,
    ),
    load: loadNow(),
  });
  await sqlite.close();
}
const database = process.env.BENCH_REPORT_POSTGRES === '0' ? null : await freshPostgres();
if (database) {
  // Seeding a million rows takes longer than a request's bound: the reads are what is measured.
  const pgStore = await PostgresStore.open(database.url, { timeoutMs: 600_000 });
  const pool = (pgStore as unknown as { pool: import('pg').Pool }).pool;
  results.push({
    name: 'PostgreSQL',
    result: await measure(
      pgStore,
      async (sql) =>
        void (await pool.query(
          sql === 'ANALYZE' ? sql : `WITH series(n) AS (SELECT generate_series(1, ${BIG})) ${sql}`,
        )),
      true,
    ),
    load: loadNow(),
  });
  await pgStore.close();
  await database.drop();
} else results.push({ name: 'PostgreSQL', result: null, load: loadNow() });
rmSync(dir, { recursive: true, force: true });

const ms = (t: number) => t.toFixed(1);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const n = BIG.toLocaleString('en-US');
process.stdout.write(
  [
    '',
    `## Event report and exports at ${n} tickets`,
    '',
    `The report over a real port (${REPORTS} requests), beside a GET of the bare node:http floor in the same run; the store's reads alone (\`reportCounts\`):`,
    '',
    '| store | report median, ms | max | store reads median, ms | admin GET of the event median, ms | bare GET median, ms | report / bare | load (1, 5, 15 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...results.map(({ name, result: r, load }) =>
      r === null
        ? `| ${name} | skipped: no PostgreSQL | | | | | | ${load} |`
        : `| ${name} | ${ms(quantile(r.report, 0.5))} | ${ms(Math.max(...r.report))} | ${ms(quantile(r.storeOnly, 0.5))} | ${ms(quantile(r.eventGet, 0.5))} | ${ms(quantile(r.bareGet, 0.5))} | ${(quantile(r.report, 0.5) / quantile(r.bareGet, 0.5)).toFixed(0)} | ${load} |`,
    ),
    '',
    'Each export read to its end over a real port, beside a bare node:http server streaming as many bytes in rows of the same length; resident memory, JS heap in use and memory outside the heap (Buffers) of the process (client included), before and at most during it:',
    '',
    '| store | export | rows | MB | seconds | rows/s | bare seconds | export / bare | RSS before, MiB | RSS peak, MiB | heap before, MiB | heap peak, MiB | external before, MiB | external peak, MiB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.flatMap(({ name, result: r }) =>
      r === null
        ? [`| ${name} | skipped | | | | | | | | | | | | |`]
        : r.exports.map(
            (e) =>
              `| ${name} | ${e.name} | ${e.rows.toLocaleString('en-US')} | ${e.mb.toFixed(0)} | ${(e.ms / 1000).toFixed(1)} | ${Math.round(e.rows / (e.ms / 1000)).toLocaleString('en-US')} | ${(e.bareMs / 1000).toFixed(2)} | ${(e.ms / e.bareMs).toFixed(0)} | ${mib(e.before.rss)} | ${mib(e.peaks.rss)} | ${mib(e.before.heapUsed)} | ${mib(e.peaks.heap)} | ${mib(e.before.external)} | ${mib(e.peaks.external)} |`,
          ),
    ),
    '',
  ].join('\n'),
);
