/**
 * Gates and occupancy. (1) Check-in through the HTTP app (in process, app.inject; SQLite on a
 * temporary file, every commit durable, then a fresh PostgreSQL database when one answers) at a
 * declared gate that admits the type, against the same run's check-ins that name no gate: the ratio is what declaring gates costs a check-in (target:
 * at least 0.9). Rounds alternate so both see the same machine. (2) `GET …/occupancy` on an event of
 * 1,000,000 tickets, 600,000 of them entered and 200,000 gone out, on SQLite and on PostgreSQL
 * (skipped when none answers): median and worst of the reads (target: at most 50 ms).
 *
 * Run: node --import tsx bench/gates.ts [check-ins per round]   (default 3000). Prints tables; never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { appOn, benchConfig, CONCURRENCY, checkIns, eventWith, quantile } from './inject.ts';
import { freshPostgres } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 3000);
const ROUNDS = 4;
const config = benchConfig();
const BIG = 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-gates-'));
// (1) The cost of a declared gate, on each store: rounds alternate, the ratio is per round.
async function gateCost(store: Store) {
  const app = await appOn(config, store);
  const plain = await eventWith(app, PER_ROUND * ROUNDS, null);
  const gated = await eventWith(app, PER_ROUND * ROUNDS, 'vip');
  const ratios: number[] = [];
  const rates = { plain: [] as number[], gated: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const slice = (t: { tids: string[] }) => t.tids.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
    const a = await checkIns(app, plain, slice(plain), null);
    const b = await checkIns(app, gated, slice(gated), 'vip');
    rates.plain.push(a);
    rates.gated.push(b);
    ratios.push(b / a);
  }
  await app.close();
  return { ratios, rates };
}

const sqlite = new SqliteStore(join(dir, 'gates.db'));
const costs: { name: string; cost: Awaited<ReturnType<typeof gateCost>> | null }[] = [
  { name: 'SQLite', cost: await gateCost(sqlite) },
];
await sqlite.close();
const gatesDatabase = await freshPostgres();
if (gatesDatabase) {
  const pgStore = await PostgresStore.open(gatesDatabase.url);
  costs.push({ name: 'PostgreSQL', cost: await gateCost(pgStore) });
  await pgStore.close();
  await gatesDatabase.drop();
} else costs.push({ name: 'PostgreSQL', cost: null });

// (2) Occupancy of a million-ticket event, seeded straight into the tables (the write paths are
// measured above; here only the read matters).
async function seedBig(store: Store, raw: (sql: string) => Promise<void>): Promise<string> {
  const eid = 'evt_01BENCHOCCUPANCY00000000000';
  await store.events.createEvent({
    eid,
    name: 'Big',
    event_date: '2030-01-01T18:00:00.000Z',
    ends_at: null,
    created_at: '2030-01-01T00:00:00.000Z',
    reentry: false,
    capacity: 900_000,
    timezone: 'UTC',
    day_starts_at: '00:00',
    auto_exit: false,
  });
  await raw(`INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, ticket_token)
    SELECT 'T' || n, '${eid}', 'H', 'GA', '2030-01-01T00:00:00.000Z', 'x' FROM series`);
  await raw(
    `INSERT INTO presence (tid, eid, inside) SELECT 'T' || n, '${eid}', CASE WHEN n <= 400000 THEN TRUE ELSE FALSE END FROM series WHERE n <= 600000`,
  );
  await raw(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', n, 'checked_in', 'T' || n, '2030-01-01T19:00:00.000Z', 's', CASE n % 3 WHEN 0 THEN 'north' WHEN 1 THEN 'south' ELSE 'east' END FROM series WHERE n <= 600000`);
  await raw(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', 600000 + n - 400000, 'checked_out', 'T' || n, '2030-01-01T21:00:00.000Z', 's', 'north' FROM series WHERE n > 400000 AND n <= 600000`);
  // The counters those entries and exits moved, as the write paths move them.
  await raw(`INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT eid, COALESCE(gate_id, ''), SUM(CASE WHEN type = 'checked_in' THEN 1 ELSE 0 END),
           SUM(CASE WHEN type = 'checked_out' THEN 1 ELSE 0 END)
      FROM changes WHERE eid = '${eid}' GROUP BY eid, COALESCE(gate_id, '')`);
  return eid;
}

async function readings(store: Store, eid: string, count = 20): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    const reading = await store.checkIns.occupancy(eid);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (reading.inside !== 400_000) throw new Error(`inside ${reading.inside}`);
  }
  return times;
}

const big = new SqliteStore(join(dir, 'big.db'));
const bigSqlite = await seedBig(big, async (sql) => {
  const db = (big as unknown as { ctx: { db: import('better-sqlite3').Database } }).ctx.db;
  db.exec(
    `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${BIG}) ${sql.replace(/TRUE/g, '1').replace(/FALSE/g, '0')}`,
  );
});
const sqliteTimes = await readings(big, bigSqlite);
await big.close();

let pgTimes: number[] | null = null;
const database = await freshPostgres();
if (database) {
  // Seeding a million rows takes longer than a request's bound: the reads are what is measured.
  const pgStore = await PostgresStore.open(database.url, { timeoutMs: 600_000 });
  const pool = (pgStore as unknown as { pool: import('pg').Pool }).pool;
  const eid = await seedBig(pgStore, async (sql) => {
    await pool.query(`WITH series(n) AS (SELECT generate_series(1, ${BIG})) ${sql}`);
  });
  await pool.query('ANALYZE');
  pgTimes = await readings(pgStore, eid);
  await pgStore.close();
  await database.drop();
}
rmSync(dir, { recursive: true, force: true });

const row = (name: string, t: number[] | null) =>
  t === null
    ? `| ${name} | skipped: no PostgreSQL | | |`
    : `| ${name} | ${t.length} | ${quantile(t, 0.5).toFixed(1)} | ${Math.max(...t).toFixed(1)} |`;
process.stdout.write(
  [
    '',
    '## Gates and occupancy',
    '',
    `Check-in at a declared gate against no gate (${CONCURRENCY} at a time, ${ROUNDS} rounds of ${PER_ROUND}, target ≥ 0.9):`,
    '',
    '| store | gated/plain per round | median | plain/s | gated/s |',
    '|---|---|---:|---:|---:|',
    ...costs.map(({ name, cost }) =>
      cost === null
        ? `| ${name} | skipped: no PostgreSQL | | | |`
        : `| ${name} | ${cost.ratios.map((r) => r.toFixed(2)).join(', ')} | ${quantile(cost.ratios, 0.5).toFixed(2)} | ${Math.round(quantile(cost.rates.plain, 0.5))} | ${Math.round(quantile(cost.rates.gated, 0.5))} |`,
    ),
    '',
    '| occupancy of 1,000,000 tickets, ms | reads | median | max |',
    '|---|---:|---:|---:|',
    row('SQLite', sqliteTimes),
    row('PostgreSQL', pgTimes),
    '',
  ].join('\n'),
);
