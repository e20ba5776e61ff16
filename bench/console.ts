/**
 * The organizer console at festival scale. An event of 1,000,000 tickets, seeded straight into the
 * tables (SQLite on a temporary file, then a fresh PostgreSQL database when one answers): 900,000
 * checked in at six gates over twelve hours, 100,000 of them let in again offline by another scanner
 * (as many conflicts), each ticket with an email, with the counts the write paths keep. (1) What one
 * console refresh costs: the requests the page sends every 2 s (the event with its counters, occupancy,
 * arrivals, the latest scans) and every 6 s (scanners, conflicts, enrolment tokens, the email numbers),
 * through the app in process; median and worst (target: a few milliseconds), beside the same refresh
 * on an event of 1,000 tickets. (2) Check-in latency (16 at a time) with three consoles polling the big
 * event against none, rounds alternating: p99 with consoles over p99 without (target at most 1.5).
 * (3) First, on an event of its own of 200,000 tickets: check-ins at a steady 200 a second, 20 s with
 * three console pages (signed in with a session cookie) paused, then 20 s with them polling, twice;
 * the p99 from when each check-in was due, per phase and per 5-second window (target: polling within
 * 1.5 times, or 20 ms, of paused; see bench/console-paced.ts).
 *
 * Settings: BENCH_CONSOLE_TICKETS (the big event's size), BENCH_CONSOLE_PACED_TICKETS (section 3's;
 * 0 skips it), BENCH_CONSOLE_RATE (its check-ins a second), BENCH_CONSOLE_PAIRS (its pairs of phases,
 * default 2), BENCH_CONSOLE_PACED_ONLY=1 (section 3 alone).
 * Run: node --import tsx bench/console.ts [check-ins per round]   (default 2000). Prints tables; never fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import {
  admin,
  type App,
  appOn,
  benchConfig,
  CONCURRENCY,
  type BenchEvent,
  eventWith,
  json,
  quantile,
} from './inject.ts';
import { type PacedResult, pacedCheckIns, withinTarget } from './console-paced.ts';
import { refresh, seed } from './console-seed.ts';
import { freshPostgres } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 2000);
const ROUNDS = 3;
const BIG = Number(process.env.BENCH_CONSOLE_TICKETS ?? 1_000_000);
const ENTERED = BIG * 0.9;
/** The event of section (3), as the issue measured it: 200,000 tickets, 200 check-ins a second. */
const PACED = Number(process.env.BENCH_CONSOLE_PACED_TICKETS ?? 200_000);
const PACED_OPTIONS = {
  rate: Number(process.env.BENCH_CONSOLE_RATE ?? 200),
  phaseMs: 20_000,
  pairs: Number(process.env.BENCH_CONSOLE_PAIRS ?? 2),
};
/** Only section (3): for a quicker run. */
const PACED_ONLY = process.env.BENCH_CONSOLE_PACED_ONLY === '1';
const LIVE_MS = 2000;
const SLOW_EVERY = 3;
const config = benchConfig();
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-console-'));

/** The routes of a refresh, each read `count` times alone: the median ms of each. */
async function routeTimes(app: App, eid: string, count = 15): Promise<Record<string, number>> {
  const path = `/admin/v1/events/${eid}`;
  const routes: Record<string, string> = {
    event: path,
    occupancy: `${path}/occupancy`,
    arrivals: `${path}/arrivals`,
    'latest scans': `${path}/scans/recent?limit=50&include=holder_name`,
    scanners: `${path}/scanners`,
    conflicts: `${path}/conflicts?limit=20`,
    tokens: `${path}/enrollment-tokens`,
    'email counts': `${path}/deliveries?limit=1`,
  };
  const medians: Record<string, number> = {};
  for (const [name, url] of Object.entries(routes)) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      await json(app.inject({ method: 'GET', url, headers: admin }));
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    medians[name] = quantile(times, 0.5);
  }
  return medians;
}

/** Milliseconds of `count` refreshes (the slow part every third), one after another. */
async function refreshTimes(app: App, eid: string, count = 30): Promise<number[]> {
  await refresh(app, eid, true);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await refresh(app, eid, i % SLOW_EVERY === 0);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

/** Each check-in's latency in ms, CONCURRENCY at a time. */
async function checkInLatencies(app: App, target: BenchEvent, tids: string[]): Promise<number[]> {
  let next = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tids.length) {
        const tid = tids[next++]!;
        const started = process.hrtime.bigint();
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          headers: target.headers,
          payload: {
            tid,
            eid: target.eid,
            scanned_at: new Date().toISOString(),
            scanner_id: target.scannerId,
            idempotency_key: randomUUID(),
          },
        });
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      }
    }),
  );
  return latencies;
}

/** Three consoles polling the event as the page does (each every 2 s, starting apart) while `work` runs. */
async function withConsoles<T>(app: App, eid: string, work: () => Promise<T>): Promise<T> {
  let stop = false;
  const consoles = [0, 1, 2].map(async (i) => {
    await new Promise((resolve) => setTimeout(resolve, (i * LIVE_MS) / 3));
    for (let tick = 0; !stop; tick++) {
      await refresh(app, eid, tick % SLOW_EVERY === 0);
      await new Promise((resolve) => setTimeout(resolve, LIVE_MS));
    }
  });
  try {
    return await work();
  } finally {
    stop = true;
    await Promise.all(consoles);
  }
}

interface Result {
  routes: Record<string, number>;
  big: number[];
  small: number[];
  p99: { none: number[]; consoles: number[] };
  paced: PacedResult | null;
}

/** A seeded event of `size` tickets, tids `<prefix><n>`. */
async function seededEvent(
  app: App,
  raw: (sql: string, size: number) => Promise<void>,
  postgres: boolean,
  size: number,
  prefix: string,
): Promise<BenchEvent> {
  const event = await eventWith(app, 0);
  const { scanners } = await json<{ scanners: { api_key_id: string }[] }>(
    app.inject({ method: 'GET', url: `/admin/v1/events/${event.eid}/scanners`, headers: admin }),
  );
  await seed(raw, event, scanners[0]!.api_key_id, postgres, size, prefix);
  if (postgres) await raw('ANALYZE', 0);
  return event;
}

async function measure(
  store: Store,
  raw: (sql: string, size: number) => Promise<void>,
  postgres: boolean,
): Promise<Result> {
  const app = await appOn(config, store);
  // (3) first, on its own event of PACED tickets (none: skipped), before the big one grows the store.
  let paced: PacedResult | null = null;
  if (PACED > 0) {
    const pacedEvent = await seededEvent(app, raw, postgres, PACED, 'P');
    const pacedTids = Array.from({ length: PACED * 0.1 }, (_, i) => `P${PACED * 0.9 + 1 + i}`);
    paced = await pacedCheckIns(app, pacedEvent, pacedTids, PACED_OPTIONS);
    process.stderr.write(`${postgres ? 'PostgreSQL' : 'SQLite'}: ${JSON.stringify(paced)}\n`);
  }
  const result: Result = { big: [], routes: {}, small: [], p99: { none: [], consoles: [] }, paced };
  if (PACED_ONLY) {
    await app.close();
    return result;
  }
  const small = await eventWith(app, 1000);
  const big = await seededEvent(app, raw, postgres, BIG, 'T');
  result.big = await refreshTimes(app, big.eid);
  result.routes = await routeTimes(app, big.eid);
  result.small = await refreshTimes(app, small.eid);
  // Check-ins of the tickets not used yet, a slice per round.
  const unused = Array.from({ length: PER_ROUND * ROUNDS * 2 }, (_, i) => `T${ENTERED + 1 + i}`);
  for (let round = 0; round < ROUNDS; round++) {
    const slice = (k: number) => unused.slice((2 * round + k) * PER_ROUND, (2 * round + k + 1) * PER_ROUND);
    result.p99.none.push(quantile(await checkInLatencies(app, big, slice(0)), 0.99));
    result.p99.consoles.push(
      quantile(await withConsoles(app, big.eid, () => checkInLatencies(app, big, slice(1))), 0.99),
    );
  }
  await app.close();
  return result;
}

const sqlite = new SqliteStore(join(dir, 'console.db'));
const sqliteDb = (sqlite as unknown as { ctx: { db: import('better-sqlite3').Database } }).ctx.db;
const results: { name: string; result: Result | null }[] = [
  {
    name: 'SQLite',
    result: await measure(
      sqlite,
      async (sql, size) =>
        void sqliteDb.exec(
          sql === 'ANALYZE'
            ? sql
            : `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${size}) ${sql}`,
        ),
      false,
    ),
  },
];
await sqlite.close();
const database = await freshPostgres();
if (database) {
  // Seeding a million rows takes longer than a request's bound: the reads are what is measured.
  const pgStore = await PostgresStore.open(database.url, { timeoutMs: 600_000 });
  const pool = (pgStore as unknown as { pool: import('pg').Pool }).pool;
  results.push({
    name: 'PostgreSQL',
    result: await measure(
      pgStore,
      async (sql, size) =>
        void (await pool.query(
          sql === 'ANALYZE' ? sql : `WITH series(n) AS (SELECT generate_series(1, ${size})) ${sql}`,
        )),
      true,
    ),
  });
  await pgStore.close();
  await database.drop();
} else results.push({ name: 'PostgreSQL', result: null });
rmSync(dir, { recursive: true, force: true });

const ms = (t: number) => t.toFixed(1);
const sections12 = () => [
  '',
  `## The console at ${BIG.toLocaleString('en')} tickets`,
  '',
  'One refresh (event and counters, occupancy, arrivals, the latest 50 scans; scanners, conflicts and tokens every third), ms:',
  '',
  '| store | 1,000,000 tickets: median | max | 1,000 tickets: median | max |',
  '|---|---:|---:|---:|---:|',
  ...results.map(({ name, result: r }) =>
    r === null
      ? `| ${name} | skipped: no PostgreSQL | | | |`
      : `| ${name} | ${ms(quantile(r.big, 0.5))} | ${ms(Math.max(...r.big))} | ${ms(quantile(r.small, 0.5))} | ${ms(Math.max(...r.small))} |`,
  ),
  '',
  `Each read alone at ${BIG.toLocaleString('en')} tickets, median ms:`,
  '',
  `| store | ${Object.keys(results.find((r) => r.result)?.result?.routes ?? {}).join(' | ')} |`,
  `|---|${Object.keys(results.find((r) => r.result)?.result?.routes ?? {})
    .map(() => '---:')
    .join('|')}|`,
  ...results.map(({ name, result: r }) =>
    r === null ? `| ${name} | skipped |` : `| ${name} | ${Object.values(r.routes).map(ms).join(' | ')} |`,
  ),
  '',
  `Check-in p99 (${CONCURRENCY} at a time, ${ROUNDS} rounds of ${PER_ROUND} each way) with three consoles polling the big event, against none (target ≤ 1.5):`,
  '',
  '| store | p99 none, ms | p99 three consoles, ms | ratio per round | median ratio |',
  '|---|---|---|---|---:|',
  ...results.map(({ name, result: r }) => {
    if (r === null) return `| ${name} | skipped: no PostgreSQL | | | |`;
    const ratios = r.p99.consoles.map((c, i) => c / r.p99.none[i]!);
    return `| ${name} | ${r.p99.none.map(ms).join(', ')} | ${r.p99.consoles.map(ms).join(', ')} | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ${quantile(ratios, 0.5).toFixed(2)} |`;
  }),
  '',
];
const paced = [
  '',
  `Check-ins at ${PACED_OPTIONS.rate}/s on an event of ${PACED.toLocaleString('en')} tickets, ${PACED_OPTIONS.phaseMs / 1000} s with three console pages paused, then ${PACED_OPTIONS.phaseMs / 1000} s with them polling, ${PACED_OPTIONS.pairs} times; p99 from when each was due, ms (target: polling within 1.5x, or 20 ms, of paused):`,
  '',
  '| store | paused / polling, per phase pair | within target | per 5 s window (paused . polling) | console calls |',
  '|---|---|---|---|---:|',
  ...results.map(({ name, result: r }) => {
    if (r === null) return `| ${name} | skipped: no PostgreSQL | | | |`;
    if (r.paced === null) return `| ${name} | skipped: BENCH_CONSOLE_PACED_TICKETS=0 | | | |`;
    const { phases, windows, calls } = r.paced;
    const pairs = phases.map((p) => `${ms(p.paused)} / ${ms(p.polling)}`).join(', ');
    const met = phases.every((p) => withinTarget(p.paused, p.polling)) ? 'yes' : 'no';
    const perWindow = windows.map((w) => `${w.polling ? '*' : ''}${ms(w.p99)}`).join(' ');
    return `| ${name} | ${pairs} | ${met} | ${perWindow} | ${calls} |`;
  }),
  '',
  '(* marks a window with the pages polling.)',
  '',
];
process.stdout.write([...(PACED_ONLY ? [] : sections12()), ...paced].join('\n'));
