import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { adminCall, enrollScanner, scenario, type Scenario, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

/**
 * What the console reads every 2 s (counters, occupancy, arrivals, the latest scans and the scans
 * since, conflicts, scanners, enrolment tokens, the email numbers) must not grow with the event: on an event of
 * TICKETS tickets, each entered and half of them let in again offline by another gate (as many
 * conflicts), every statement those reads run touches the tickets and the scan log by index for a
 * page, never the event. SQLite: the plan of each statement (a search by a ticket, a scan, or a
 * bounded range; never a scan, nor a search by the event alone). PostgreSQL: the rows each statement
 * actually read from those tables (EXPLAIN ANALYZE).
 */
const TICKETS = 20_000;
const MAX_ROWS_READ = 500;
const BIG_TABLES = ['scans', 'tickets'];
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

interface Backend {
  name: string;
  skip: string | undefined;
  open(): Promise<{ store: Store; drop?: () => Promise<void> }>;
  exec(store: Store, sql: string): Promise<void>;
  /** Starts recording the statements the store runs. */
  record(store: Store): void;
  /** For each statement recorded since `record`: why it reads the event rather than a page, or null. */
  offences(store: Store): Promise<string[]>;
}

const sqliteCtx = (store: Store) =>
  (store as unknown as { ctx: { db: import('better-sqlite3').Database; statements: Map<string, unknown> } }).ctx;

/** The aliases (and bare names) under which a statement reads the big tables. */
function bigTableAliases(sql: string): Set<string> {
  const aliases = new Set<string>();
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    if (!BIG_TABLES.includes(m[1]!)) continue;
    const alias = m[2];
    aliases.add(alias && !/^(WHERE|JOIN|LEFT|ON|GROUP|ORDER|LIMIT|USING)$/i.test(alias) ? alias : m[1]!);
  }
  return aliases;
}

/** A search that names one ticket, one scan, one key, or a range of scan ids a LIMIT bounds. */
const SELECTIVE = /\b(tid=\?|scan_id=\?|rowid=\?|idempotency_key=\?|scan_id[<>]=?\?)/;

const sqlite: Backend = {
  name: 'SQLite',
  skip: undefined,
  open: async () => ({ store: new SqliteStore(':memory:') }),
  exec: async (store, sql) => void sqliteCtx(store).db.exec(sql),
  record: (store) => sqliteCtx(store).statements.clear(),
  offences: async (store) => {
    const ctx = sqliteCtx(store);
    const found: string[] = [];
    for (const sql of ctx.statements.keys()) {
      if (!/^\s*(SELECT|WITH)\b/i.test(sql) || sql.includes('@')) continue;
      const aliases = bigTableAliases(sql);
      const params = Array.from(sql.matchAll(/\?/g), () => null);
      const plan = ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
      for (const { detail } of plan) {
        const m = /^(SCAN|SEARCH) (\w+)/.exec(detail);
        if (!m || !aliases.has(m[2]!)) continue;
        const bounded =
          m[1] === 'SEARCH' && SELECTIVE.test(detail) && (!/scan_id[<>]/.test(detail) || /LIMIT/i.test(sql));
        if (!bounded) found.push(`${detail}\n    in ${sql.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
    }
    return found;
  },
};

const recorded: { text: string; values: unknown[] }[] = [];
let recording = false;
const poolOf = (store: Store) => (store as unknown as { pool: pg.Pool }).pool;
const pgAvailability = await postgresAvailability('console polling cost on PostgreSQL');

/** The rows a plan node and its children read from the big tables (returned, and removed by a filter). */
function rowsRead(node: Record<string, unknown>): number {
  const loops = Number(node['Actual Loops'] ?? 1);
  const own = BIG_TABLES.includes(String(node['Relation Name']))
    ? (Number(node['Actual Rows'] ?? 0) + Number(node['Rows Removed by Filter'] ?? 0)) * loops
    : 0;
  return (
    own + ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, child) => sum + rowsRead(child), 0)
  );
}

const postgres: Backend = {
  name: 'PostgreSQL',
  skip: pgAvailability.skip,
  open: async () => {
    if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
    const database = await freshDatabase();
    const store = await PostgresStore.open(database.url);
    return { store, drop: database.drop };
  },
  exec: async (store, sql) => void (await poolOf(store).query(sql)),
  record: () => {
    recorded.length = 0;
    recording = true;
  },
  offences: async (store) => {
    recording = false;
    const found: string[] = [];
    for (const { text, values } of recorded) {
      if (!/^\s*(SELECT|WITH)\b/i.test(text) || /\b(INSERT|UPDATE|DELETE)\b/i.test(text)) continue;
      const { rows } = await poolOf(store).query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      const read = rowsRead((rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
      if (read > MAX_ROWS_READ) found.push(`${read} rows read by ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
    return found;
  },
};

const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (recording && typeof args[0] === 'string') recorded.push({ text: args[0], values: (args[1] as unknown[]) ?? [] });
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

for (const backend of [sqlite, postgres]) {
  describe(`the console's refresh reads a page, not the event (${backend.name}, ${TICKETS} tickets)`, () => {
    const it = itUnless(backend.skip);
    let t: TestIssuer;
    let drop: (() => Promise<void>) | undefined;
    let s: Scenario;
    before(async () => {
      if (backend.skip !== undefined) return;
      const opened = await backend.open();
      drop = opened.drop;
      t = await testIssuer({ store: opened.store });
      s = await scenario(t.app, { gateId: 'north' });
      const south = await enrollScanner(t.app, s.eid, randomUUID(), 'south');
      const [T, F, series] =
        backend === sqlite
          ? [
              '1',
              '0',
              `(WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${TICKETS}) SELECT n FROM series)`,
            ]
          : ['TRUE', 'FALSE', `generate_series(1, ${TICKETS})`];
      const n = backend === sqlite ? 'series.n' : 'n';
      const from = backend === sqlite ? `FROM ${series} AS series` : `FROM ${series} AS n`;
      const tid = `'seed-' || ${n}`;
      await backend.exec(
        t.store,
        `INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, checked_in_at, ticket_token, search_name)
           SELECT ${tid}, '${s.eid}', 'Guest ' || ${n}, 'GA', '${at(-600)}', '${at(-300)}', 'token-' || ${n}, 'guest ' || ${n} ${from}`,
      );
      // Each ticket entered at the north gate, and half of them let in again offline at the south gate.
      const scan = (key: string, apiKeyId: string, scanner: string, gate: string, outcome: string, offline: string) =>
        `SELECT '${s.eid}', ${tid}, '${apiKeyId}', '${scanner}', '${gate}', '${key}-' || ${n}, '${at(-300)}',
                '${at(-299)}', '${outcome}', NULL, ${F}, ${offline}, ${F}`;
      const columns =
        'eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at, outcome, reason, replay, admitted_offline, turned_away_offline';
      if (backend === sqlite) {
        await backend.exec(
          t.store,
          `INSERT INTO scans (${columns}) ${scan('in', s.apiKeyId, s.scannerId, 'north', 'valid', F)} ${from}`,
        );
        await backend.exec(
          t.store,
          `INSERT INTO scans (${columns}) ${scan('again', south.apiKeyId, 'south-phone', 'south', 'already_used', T)} ${from} WHERE ${n} % 2 = 0`,
        );
      } else {
        await backend.exec(
          t.store,
          `INSERT INTO scans (${columns}, log_position) SELECT x.*, row_number() OVER () FROM (
             ${scan('in', s.apiKeyId, s.scannerId, 'north', 'valid', F)} ${from}
             UNION ALL ${scan('again', south.apiKeyId, 'south-phone', 'south', 'already_used', T)} ${from} WHERE ${n} % 2 = 0) x;
           UPDATE change_counters SET last_log_position = ${TICKETS + TICKETS / 2} WHERE eid = '${s.eid}'`,
        );
      }
      // The conflicts as the store keeps them, each ticket once with the entry it collided with.
      await backend.exec(
        t.store,
        `INSERT INTO ticket_conflicts (tid, eid, anchor) SELECT tid, eid, scan_id FROM scans
           WHERE eid = '${s.eid}' AND outcome = 'valid' AND tid LIKE 'seed-%' AND CAST(substr(tid, 6) AS INTEGER) % 2 = 0`,
      );
      if (backend === postgres) await backend.exec(t.store, 'ANALYZE');
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    it('counters, occupancy, arrivals, the latest scans and those since, conflicts, scanners, tokens and email numbers', async () => {
      const path = `/admin/v1/events/${s.eid}`;
      // A first refresh (statements prepared, serializers compiled), then the one measured.
      const refresh = async () => {
        const recent = await adminCall<{ newer_cursor: string }>(
          t.app,
          'GET',
          `${path}/scans/recent?limit=50&include=holder_name`,
        );
        const conflicts = await adminCall<{ conflicts: unknown[] }>(t.app, 'GET', `${path}/conflicts?limit=20`);
        assert.equal(conflicts.conflicts.length, 20);
        await Promise.all([
          adminCall(t.app, 'GET', path),
          adminCall(t.app, 'GET', `${path}/occupancy`),
          adminCall(t.app, 'GET', `${path}/arrivals`),
          adminCall(t.app, 'GET', `${path}/scans?limit=1000&include=holder_name&cursor=${recent.newer_cursor}`),
          adminCall(t.app, 'GET', `${path}/scanners`),
          adminCall(t.app, 'GET', `${path}/enrollment-tokens`),
          // The email numbers of Send tickets: kept, never counted over the event's tickets.
          adminCall(t.app, 'GET', `${path}/deliveries?limit=1`),
        ]);
      };
      await refresh();
      backend.record(t.store);
      await refresh();
      assert.deepEqual(await backend.offences(t.store), []);
    });
  });
}
