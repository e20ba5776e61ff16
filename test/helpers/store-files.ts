import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase, itUnless, postgresAvailability } from './services.ts';

/**
 * A store on a file or a database of its own, which a test closes and opens again (a migration runs
 * at each opening), with SQL on it through a connection of the test's own: to take the store back
 * to an earlier version, or to look at its tables.
 */
export interface StoreFile {
  backend: 'SQLite' | 'PostgreSQL';
  /** A new store on the file or database. */
  open(): Promise<Store>;
  /** Runs one or several statements. */
  exec(text: string): Promise<void>;
  /** The first column of each row of a query; its parameters written `$1`, `$2`… on both stores. */
  column(text: string, ...values: unknown[]): Promise<unknown[]>;
}

/**
 * Registers `check` under `title` once per backend: on a SQLite file in a temporary directory, and on
 * a fresh PostgreSQL database (skipped loudly without a server, a failure under REQUIRE_SERVICES=1).
 */
export async function onEachStoreFile(title: string, check: (file: StoreFile) => Promise<void>): Promise<void> {
  const pgAvailability = await postgresAvailability(`${title} on PostgreSQL`);
  describe(title, () => {
    itUnless(undefined)('SQLite', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'store-file-'));
      const path = join(dir, 'issuer.db');
      const withDb = <T>(work: (db: Database.Database) => T): T => {
        const db = new Database(path);
        try {
          db.pragma('busy_timeout = 5000');
          return work(db);
        } finally {
          db.close();
        }
      };
      try {
        await check({
          backend: 'SQLite',
          open: async () => new SqliteStore(path),
          exec: async (text) => withDb((db) => void db.exec(text)),
          column: async (text, ...values) =>
            withDb((db) =>
              db
                .prepare(text.replace(/\$\d+/g, '?'))
                .pluck()
                .all(...values),
            ),
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    itUnless(pgAvailability.skip)('PostgreSQL', async () => {
      if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
      const database = await freshDatabase();
      const withClient = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return await work(client);
        } finally {
          await client.end();
        }
      };
      try {
        await check({
          backend: 'PostgreSQL',
          open: () => PostgresStore.open(database.url),
          exec: (text) => withClient(async (client) => void (await client.query(text))),
          column: (text, ...values) =>
            withClient(async (client) =>
              (await client.query({ text, values, rowMode: 'array' })).rows.map((row: unknown[]) => row[0]),
            ),
        });
      } finally {
        await database.drop();
      }
    });
  });
}
