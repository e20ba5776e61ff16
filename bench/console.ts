/**
 * The organizer console at festival scale. An event of 1,000,000 tickets, seeded straight into the
 * tables (SQLite on a temporary file, then a fresh PostgreSQL database when one answers): 900,000
 * checked in at six gates over twelve hours, 100,000 of them let in again offline by another scanner
 * (as many conflicts), with the counts the write paths keep. (1) What one console refresh costs: the
 * requests the page sends every 2 s (the event with its counters, occupancy, arrivals, the latest scans)
 * and every 6 s (scanners, conflicts, enrolment tokens), through the app in process; median and worst
 * (target: a few milliseconds), beside the same refresh on an event of 1,000 tickets. (2) Check-in
 * latency (16 at a time) with three consoles polling the big event against none, rounds alternating:
 * p99 with consoles over p99 without (target at most 1.5).
 *
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
import { freshPostgres } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 2000);
const ROUNDS = 3;
const BIG = Number(process.env.BENCH_CONSOLE_TICKETS ?? 1_000_000);
const ENTERED = BIG * 0.9;
const GATES = ['north', 'south', 'east', 'west', 'vip', 'staff'];
const LIVE_MS = 2000;
const SLOW_EVERY = 3;
const config = benchConfig();
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-console-'));

/**
 * Seeds the event's tickets, scans, feed and kept counts (`raw` runs SQL with a row source `series`
 * of n = 1..BIG); the scans name the event's enrolled scanner, as real ones would.
 */
async function seed(
  raw: (sql: string) => Promise<void>,
  target: BenchEvent,
  apiKeyId: string,
  postgres: boolean,
): Promise<void> {
  const { eid } = target;
  const b = (value: boolean) => (postgres ? String(value).toUpperCase() : value ? '1' : '0');
  const at = (n: string) =>
    postgres
      ? `to_char(TIMESTAMP '2030-01-01 18:00:00' + ((${n} % 720) * INTERVAL '1 minute'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%S.000Z', '2030-01-01 18:00:00', '+' || (${n} % 720) || ' minutes')`;
  const gate = (n: string) => `CASE ${n} % 6 ${GATES.map((g, i) => `WHEN ${i} THEN '${g}'`).join(' ')} END`;
  await raw(`INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, checked_in_at, ticket_token, search_name, email)
    SELECT 'T' || n, '${eid}', 'Holder ' || n, 'GA', '2030-01-01T00:00:00.000Z',
           CASE WHEN n <= ${ENTERED} THEN ${at('n')} END, 'x', 'holder ' || n, 'holder' || n || '@example.org' FROM series`);
  await raw(
    `INSERT INTO presence (tid, eid, inside) SELECT 'T' || n, '${eid}', ${b(true)} FROM series WHERE n <= ${ENTERED}`,
  );
  const columns =
    'eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at, outcome, reason, replay, admitted_offline, turned_away_offline';
  const scans = (where: string, key: string, scanner: string, outcome: string, offline: boolean) =>
    `SELECT '${eid}', 'T' || n, '${apiKeyId}', '${scanner}', ${gate('n')}, '${key}' || n, ${at('n')}, ${at('n')},
       '${outcome}', NULL, ${b(false)}, ${b(offline)}, ${b(false)} FROM series WHERE ${where}`;
  const entries = scans(`n <= ${ENTERED}`, 'in-', target.scannerId, 'valid', false);
  const again = scans(`n <= ${ENTERED} AND n % 9 = 0`, 'again-', 'offline-phone', 'already_used', true);
  const logged = ENTERED + ENTERED / 9;
  if (postgres) {
    await raw(`INSERT INTO scans (${columns}, log_position)
      SELECT x.*, row_number() OVER () FROM (${entries} UNION ALL ${again}) x`);
  } else {
    await raw(`INSERT INTO scans (${columns}) ${entries}`);
    await raw(`INSERT INTO scans (${columns}) ${again}`);
  }
  await raw(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', n, 'checked_in', 'T' || n, ${at('n')}, '${target.scannerId}', ${gate('n')} FROM series WHERE n <= ${ENTERED}`);
  // The counts the write paths keep, as they would have kept them.
  await raw(`INSERT INTO change_counters (eid, last_position${postgres ? ', last_log_position' : ''})
    SELECT '${eid}', ${ENTERED}${postgres ? `, ${logged}` : ''} FROM series WHERE n = 1
    ON CONFLICT (eid) DO UPDATE SET last_position = excluded.last_position${postgres ? ', last_log_position = excluded.last_log_position' : ''}`);
  await raw(`INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT eid, gate_id, COUNT(*), 0 FROM changes WHERE eid = '${eid}' GROUP BY eid, gate_id`);
  await raw(`INSERT INTO arrival_counts (eid, minute, gate_key, entries)
    SELECT eid, substr(at, 1, 16), gate_id, COUNT(*) FROM changes WHERE eid = '${eid}' GROUP BY eid, substr(at, 1, 16), gate_id`);
  await raw(`INSERT INTO ticket_conflicts (tid, eid, anchor)
    SELECT tid, eid, scan_id FROM scans WHERE eid = '${eid}' AND outcome = 'valid' AND idempotency_key LIKE 'in-%'
      AND CAST(substr(tid, 2) AS INTEGER) % 9 = 0`);
  await raw(`INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
    SELECT '${eid}', ${BIG}, ${ENTERED}, 0, ${ENTERED / 9} FROM series WHERE n = 1
    ON CONFLICT (eid) DO UPDATE SET issued = event_counters.issued + excluded.issued,
      checked_in = event_counters.checked_in + excluded.checked_in, conflicts = excluded.conflicts`);
}

/** One console refresh: the live part, and every SLOW_EVERY-th time the slow part too. */
async function refresh(app: App, eid: string, slow: boolean): Promise<void> {
  const path = `/admin/v1/events/${eid}`;
  const get = (url: string) => json(app.inject({ method: 'GET', url, headers: admin }));
  await Promise.all([
    get(path),
    get(`${path}/occupancy`),
    get(`${path}/arrivals`),
    get(`${path}/scans/recent?limit=50&include=holder_name`),
    ...(slow
      ? [
          get(`${path}/scanners`),
          get(`${path}/conflicts?limit=20`),
          get(`${path}/enrollment-tokens`),
          get(`${path}/deliveries?limit=1`),
        ]
      : []),
  ]);
}

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
}

async function measure(store: Store, raw: (sql: string) => Promise<void>, postgres: boolean): Promise<Result> {
  const app = await appOn(config, store);
  const small = await eventWith(app, 1000);
  const big = await eventWith(app, 0);
  const { scanners } = await json<{ scanners: { api_key_id: string }[] }>(
    app.inject({ method: 'GET', url: `/admin/v1/events/${big.eid}/scanners`, headers: admin }),
  );
  await seed(raw, big, scanners[0]!.api_key_id, postgres);
  if (postgres) await raw('ANALYZE');
  const result: Result = {
    big: await refreshTimes(app, big.eid),
    routes: await routeTimes(app, big.eid),
    small: await refreshTimes(app, small.eid),
    p99: { none: [], consoles: [] },
  };
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
      async (sql) =>
        void sqliteDb.exec(
          sql === 'ANALYZE'
            ? sql
            : `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${BIG}) ${sql}`,
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
      async (sql) =>
        void (await pool.query(
          sql === 'ANALYZE' ? sql : `WITH series(n) AS (SELECT generate_series(1, ${BIG})) ${sql}`,
        )),
      true,
    ),
  });
  await pgStore.close();
  await database.drop();
} else results.push({ name: 'PostgreSQL', result: null });
rmSync(dir, { recursive: true, force: true });

const ms = (t: number) => t.toFixed(1);
process.stdout.write(
  [
    '',
    '## The console at 1,000,000 tickets',
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
    'Each read alone at 1,000,000 tickets, median ms:',
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
  ].join('\n'),
);
