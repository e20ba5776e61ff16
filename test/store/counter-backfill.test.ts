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
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { keptCounts, runCounterMix } from './counters-mix.ts';
import { liveKey } from './live-key.ts';

/**
 * Migration 16 counts once what came before it: a store that ran the mix without its counter tables
 * (dropped, and the migration forgotten) migrates again on opening and reads the same counts as the
 * store that kept them with each change.
 */
const FORGET = `DROP TABLE event_counters; DROP TABLE ticket_conflicts; DROP TABLE arrival_counts;
  DELETE FROM schema_migrations WHERE version = 16;`;

async function backfillMatches(open: () => Promise<Store>, forget: () => Promise<void>): Promise<void> {
  let store = await open();
  const { eids } = await runCounterMix(store, await liveKey(store));
  const kept = await Promise.all(eids.map((eid) => keptCounts(store, eid)));
  await store.close();
  await forget();
  store = await open();
  try {
    assert.deepEqual(await Promise.all(eids.map((eid) => keptCounts(store, eid))), kept);
  } finally {
    await store.close();
  }
}

const pgAvailability = await postgresAvailability('counter backfill on PostgreSQL');

describe('migration 16 counts what came before it as the stores keep it', () => {
  itUnless(undefined)('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'counter-backfill-'));
    const path = join(dir, 'issuer.db');
    try {
      await backfillMatches(
        async () => new SqliteStore(path),
        async () => {
          const db = new Database(path);
          db.exec(FORGET);
          db.close();
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  itUnless(pgAvailability.skip)('PostgreSQL', async () => {
    if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
    const database = await freshDatabase();
    try {
      await backfillMatches(
        () => PostgresStore.open(database.url),
        async () => {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          await client.query(FORGET);
          await client.end();
        },
      );
    } finally {
      await database.drop();
    }
  });
});
