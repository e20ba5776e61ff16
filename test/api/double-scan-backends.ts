import assert from 'node:assert/strict';
import pg from 'pg';
import { ANNUL_ENTRY_SQL, ANNUL_SCANS_SQL, ENTRY_BY_KEY_SQL, SCAN_BY_KEY_SQL } from '../../src/store/annul.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { numbered } from '../../src/store/postgres/queries.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase, postgresAvailability } from '../helpers/services.ts';

/**
 * The two stores as double-scan-cost.test.ts reads them: direct SQL, and the plans of the statements
 * the app ran that pick scans by their idempotency key (captured as they were prepared or sent).
 */
/** A statement that reads the scans a double scan just logged, by their idempotency keys (the fan-out's among them). */
const readsLoggedScans = (sql: string) => /FROM scans d\b/.test(sql) && /\bd\.idempotency_key\b/.test(sql);
/** The annul's statements that pick rows by an idempotency key: the scan and its entry, found and marked. */
const ANNUL_BY_KEY = [SCAN_BY_KEY_SQL, ANNUL_SCANS_SQL, ENTRY_BY_KEY_SQL, ANNUL_ENTRY_SQL];
const annulByKey = (sql: string) => ANNUL_BY_KEY.some((by) => sql === by || sql === numbered(by));
/** The tables the annul's statements read by key, by their aliases there. */
const ANNUL_TABLES: Record<string, string> = { scans: 'scans', s: 'scans', entries: 'entries', k: 'idempotency_keys' };
/** An access path of a plan: the table, and how it is read (its index, or a whole scan). */
export interface AccessPath {
  table: string;
  path: string;
}
/** What one backend gives the test: direct SQL, and the plans of the statements the app ran. */
export interface Backend {
  name: string;
  skip: string | undefined;
  open(): Promise<{ store: Store; drop?: () => Promise<void> }>;
  /** Runs SQL on the store's own connection (seeding; `?` placeholders on SQLite, `$n` on PostgreSQL). */
  exec(store: Store, sql: string): Promise<void>;
  count(store: Store, sql: string): Promise<number>;
  /** The access path of scans `d` in the plan of each statement the app ran that reads the scans it logged. */
  loggedScanPaths(store: Store): Promise<string[]>;
  /** Every access path to a table in the plans of the annul's statements that pick rows by a key. */
  annulPaths(store: Store): Promise<AccessPath[]>;
}

const sqliteDb = (store: Store) =>
  (store as unknown as { ctx: { db: import('better-sqlite3').Database; statements: Map<string, unknown> } }).ctx;

export const sqlite: Backend = {
  name: 'SQLite',
  skip: undefined,
  open: async () => ({ store: new SqliteStore(':memory:') }),
  exec: async (store, sql) => void sqliteDb(store).db.exec(sql),
  count: async (store, sql) => Number(sqliteDb(store).db.prepare(sql).pluck().get()),
  loggedScanPaths: async (store) => {
    // The statements as the store prepared them (it keeps each one it ran), planned with any values.
    const ctx = sqliteDb(store);
    return [...ctx.statements.keys()].filter(readsLoggedScans).map((sql) => {
      const values = Array.from(sql.matchAll(/\?/g), () => '[]');
      const plan = ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[];
      const line = plan.map((p) => p.detail).find((detail) => /^(SEARCH|SCAN) d\b/.test(detail));
      assert.ok(line, `scans d in the plan: ${plan.map((p) => p.detail).join(' | ')}`);
      return line;
    });
  },
  annulPaths: async (store) => {
    const ctx = sqliteDb(store);
    const ran = [...ctx.statements.keys()].filter(annulByKey);
    assert.equal(ran.length, ANNUL_BY_KEY.length, 'the annul found its scan and entry and marked them');
    return ran.flatMap((sql) => {
      const values = Array.from(sql.matchAll(/\?/g), () => 'x');
      const plan = ctx.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[];
      return plan.flatMap(({ detail }) => {
        const table = ANNUL_TABLES[/^(?:SEARCH|SCAN) (\w+)/.exec(detail)?.[1] ?? ''];
        return table === undefined ? [] : [{ table, path: detail }];
      });
    });
  },
};

/** Each statement the app sent PostgreSQL that reads the scans it logged, by text, with its last values. */
const pgLoggedScanReads = new Map<string, unknown[]>();
/** The annul's statements by key the app sent PostgreSQL, with their last values. */
const pgAnnulReads = new Map<string, unknown[]>();
const poolOf = (store: Store) => (store as unknown as { pool: pg.Pool }).pool;
const pgAvailability = await postgresAvailability('double-scan cost on PostgreSQL');

export const postgres: Backend = {
  name: 'PostgreSQL',
  skip: pgAvailability.skip,
  open: async () => {
    if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && !args[0].startsWith('EXPLAIN') && readsLoggedScans(args[0])) {
        pgLoggedScanReads.set(args[0], (args[1] as unknown[]) ?? []);
      }
      if (typeof args[0] === 'string' && annulByKey(args[0])) pgAnnulReads.set(args[0], (args[1] as unknown[]) ?? []);
      return query.apply(this, args);
    } as typeof pg.Client.prototype.query;
    const database = await freshDatabase();
    const store = await PostgresStore.open(database.url);
    return {
      store,
      drop: async () => {
        pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
        await database.drop();
      },
    };
  },
  exec: async (store, sql) => void (await poolOf(store).query(sql)),
  count: async (store, sql) => Number((await poolOf(store).query(sql)).rows[0]!.count),
  loggedScanPaths: async (store) => {
    const paths: string[] = [];
    for (const [text, values] of [...pgLoggedScanReads]) {
      const { rows } = await poolOf(store).query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      const found: string[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'scans' && node.Alias === 'd') {
          found.push(`${String(node['Node Type'])} ${String(node['Index Name'] ?? '')}`.trim());
        }
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
      assert.equal(found.length, 1, JSON.stringify(rows[0]));
      paths.push(found[0]!);
    }
    return paths;
  },
  annulPaths: async (store) => {
    assert.equal(pgAnnulReads.size, ANNUL_BY_KEY.length, 'the annul found its scan and entry and marked them');
    const paths: AccessPath[] = [];
    for (const [text, values] of [...pgAnnulReads]) {
      const { rows } = await poolOf(store).query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      const walk = (node: Record<string, unknown>) => {
        const table = node['Relation Name'];
        if (typeof table === 'string' && String(node['Node Type']).endsWith('Scan')) {
          paths.push({ table, path: `${String(node['Node Type'])} ${String(node['Index Name'] ?? '')}`.trim() });
        }
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
    }
    return paths;
  },
};
