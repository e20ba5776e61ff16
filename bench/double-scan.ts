/**
 * A double scan at any size of the scan log. In process (`app.inject`; SQLite on a temporary file,
 * every commit durable, then a fresh PostgreSQL database when one answers), two events whose tickets
 * are all checked in and an endpoint subscribed to `checkin.conflict` on each (no worker runs: the
 * messages only have to be written). One event's scan log holds 1,000 scans, the other's 1,000,000
 * (seeded straight into the table: half entries, half double scans of other tickets, as a festival's
 * log looks). Rounds alternate double scans of the small event and the big one, one at a time; each
 * round gives the median time of a double scan on each, and their ratio (target: at most 1.2).
 *
 * Run: node --import tsx bench/double-scan.ts [double scans per round]   (default 200). Prints a table; never fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, appOn, type App, type BenchEvent, benchConfig, checkIns, eventWith, json, quantile } from './inject.ts';
import { freshPostgres } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 200);
const ROUNDS = 5;
const TICKETS = 200;
const SMALL = 1_000;
const BIG = 1_000_000;
const config = benchConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-double-'));

/** Runs SQL on the store's own connection; with a count, `n` runs over 1..count in `series`. */
type Raw = (sql: string, count?: number) => Promise<void>;

/**
 * Adds scans to the event's log until it holds `size`: an entry and a double scan for each other
 * ticket (on PostgreSQL each at the event's next scan-log position, as the store writes them).
 */
async function growLog(raw: Raw, event: BenchEvent, size: number, positions: boolean) {
  const count = size - TICKETS;
  await raw(
    `INSERT INTO scans (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at,
       outcome, reason, replay, admitted_offline, turned_away_offline${positions ? ', log_position' : ''})
     SELECT '${event.eid}', 'seed-' || (n / 2), 'seed', 'seed', NULL, 'seed-' || n,
       '2030-01-01T19:00:00.000Z', '2030-01-01T19:00:01.000Z',
       CASE WHEN n % 2 = 0 THEN 'valid' ELSE 'already_used' END, NULL, FALSE, FALSE, FALSE
       ${positions ? `, ${TICKETS} + n` : ''} FROM series`,
    count,
  );
  if (positions) {
    await raw(`UPDATE change_counters SET last_log_position = ${size} WHERE eid = '${event.eid}'`);
  }
}

/** One double scan of a checked-in ticket (a new idempotency key), in ms. */
async function doubleScan(app: App, event: BenchEvent): Promise<number> {
  const tid = event.tids[Math.floor(Math.random() * event.tids.length)]!;
  const started = process.hrtime.bigint();
  const answer = await json<{ status: string }>(
    app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: event.headers,
      payload: {
        tid,
        eid: event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: event.scannerId,
        idempotency_key: randomUUID(),
      },
    }),
  );
  if (answer.status !== 'already_used') throw new Error(`double scan answered ${answer.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function measure(store: Store, raw: Raw, analyze: () => Promise<void>, positions: boolean) {
  const app = await appOn(config, store, false);
  const events = { small: await eventWith(app, TICKETS), big: await eventWith(app, TICKETS) };
  for (const event of Object.values(events)) {
    await json(
      app.inject({
        method: 'POST',
        url: '/admin/v1/webhooks',
        headers: admin,
        payload: { url: 'http://127.0.0.1:9/hooks', event_types: ['checkin.conflict'], eid: event.eid },
      }),
    );
    await checkIns(app, event, event.tids);
  }
  await growLog(raw, events.small, SMALL, positions);
  await growLog(raw, events.big, BIG, positions);
  await analyze();
  // Warm-up: statements prepared, pages cached.
  for (let i = 0; i < 50; i++) await doubleScan(app, i % 2 === 0 ? events.small : events.big);
  const rounds: { small: number; big: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const times = { small: [] as number[], big: [] as number[] };
    for (let i = 0; i < PER_ROUND; i++) {
      times.small.push(await doubleScan(app, events.small));
      times.big.push(await doubleScan(app, events.big));
    }
    rounds.push({ small: quantile(times.small, 0.5), big: quantile(times.big, 0.5) });
  }
  await app.close();
  return rounds;
}

const results: { name: string; rounds: Awaited<ReturnType<typeof measure>> | null }[] = [];
const sqlite = new SqliteStore(join(dir, 'double.db'));
const sqliteDb = (sqlite as unknown as { ctx: { db: import('better-sqlite3').Database } }).ctx.db;
results.push({
  name: 'SQLite',
  rounds: await measure(
    sqlite,
    async (sql, count) =>
      void sqliteDb.exec(
        `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${count ?? 0}) ${sql
          .replace(/FALSE/g, '0')
          .replace(/TRUE/g, '1')}`,
      ),
    async () => {},
    false,
  ),
});
await sqlite.close();

const database = await freshPostgres();
if (database) {
  // Seeding a million rows takes longer than a request's bound: the double scans are what is measured.
  const store = await PostgresStore.open(database.url, { timeoutMs: 600_000 });
  const pool = (store as unknown as { pool: import('pg').Pool }).pool;
  results.push({
    name: 'PostgreSQL',
    rounds: await measure(
      store,
      async (sql, count) =>
        void (await pool.query(
          count === undefined ? sql : `WITH series(n) AS (SELECT generate_series(1, ${count})) ${sql}`,
        )),
      // The statistics autovacuum keeps on a table that grew this much.
      async () => void (await pool.query('ANALYZE')),
      true,
    ),
  });
  await store.close();
  await database.drop();
} else results.push({ name: 'PostgreSQL', rounds: null });
rmSync(dir, { recursive: true, force: true });

process.stdout.write(
  [
    '',
    '## A double scan at any size of the scan log',
    '',
    `Median ms of a double scan, one at a time, ${ROUNDS} rounds of ${PER_ROUND} on each event (target: ${BIG.toLocaleString('en')} / ${SMALL.toLocaleString('en')} ≤ 1.2):`,
    '',
    '| store | 1,000-scan log, ms per round | 1,000,000-scan log, ms per round | big/small per round | median ratio |',
    '|---|---|---|---|---:|',
    ...results.map(({ name, rounds }) => {
      if (rounds === null) return `| ${name} | skipped: no PostgreSQL | | | |`;
      const ms = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
      const ratios = rounds.map((r) => r.big / r.small);
      return `| ${name} | ${ms(rounds.map((r) => r.small))} | ${ms(rounds.map((r) => r.big))} | ${ratios.map((r) => r.toFixed(2)).join(', ')} | ${quantile(ratios, 0.5).toFixed(2)} |`;
    }),
    '',
  ].join('\n'),
);
