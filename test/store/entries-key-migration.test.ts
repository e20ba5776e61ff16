import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { annulOutcome } from '@ticket-issuer/protocol';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { CheckInAttempt, Store } from '../../src/store/store.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { seedEvent } from './seeded-store.ts';

/**
 * Migration 38 drops the entries' index by idempotency key and keeps each remembered answer's ticket.
 * A store that checked a ticket in (a counted entry) and in again (a duplicate) is taken back to
 * version 37 (its entries keyed again, its answers without their ticket), opened again so that 38 runs
 * on what came before it, and then undoes the entry by the scanner's key: found through the answer's
 * ticket, as a new entry is.
 */
interface Sql {
  /** Runs statements on the store's database while the store is closed. */
  exec(sql: string): Promise<void>;
  /** The first column of each row. */
  column(sql: string, ...values: string[]): Promise<unknown[]>;
}

const SQLITE_BACK_TO_37 = `
  CREATE TABLE entries_keyed (
    eid TEXT NOT NULL, idempotency_key TEXT NOT NULL, tid TEXT NOT NULL, scanner_id TEXT NOT NULL,
    scanned_at TEXT NOT NULL, annulled_at TEXT, gate_key TEXT NOT NULL DEFAULT '',
    was_inside INTEGER NOT NULL DEFAULT 0, day TEXT, PRIMARY KEY (eid, idempotency_key)
  );
  INSERT INTO entries_keyed SELECT * FROM entries;
  DROP TABLE entries;
  ALTER TABLE entries_keyed RENAME TO entries;
  CREATE INDEX entries_by_ticket ON entries (tid, scanned_at);
  ALTER TABLE idempotency_keys DROP COLUMN tid;
  DELETE FROM schema_migrations WHERE version = 38;`;

const POSTGRES_BACK_TO_37 = `
  ALTER TABLE entries ADD PRIMARY KEY (eid, idempotency_key);
  ALTER TABLE idempotency_keys DROP COLUMN tid;
  DELETE FROM schema_migrations WHERE version = 38;`;

async function upgrades(open: () => Promise<Store>, sql: Sql, backTo37: string, entryIndexes: string): Promise<void> {
  let store = await open();
  const { event, tickets, key, attempt: attemptOf, scannedAt: at, judge } = await seedEvent(store, 1);
  const ticket = tickets[0]!;
  const attempt = () => attemptOf(ticket, null, at);
  const entry = attempt();
  const again = attempt();
  const statusOf = async (a: CheckInAttempt) => {
    const result = await store.checkIns.checkIn(a, judge);
    return result.kind === 'answered' ? (result.answer.body as { status?: string }).status : result.kind;
  };
  assert.equal(await statusOf(entry), 'valid');
  assert.equal(await statusOf(again), 'already_used');
  await store.close();

  await sql.exec(backTo37);
  assert.equal(
    (await sql.column(entryIndexes)).length,
    2,
    'at version 37, the entries are indexed by key and by ticket',
  );
  store = await open();
  try {
    assert.deepEqual(
      await sql.column(entryIndexes),
      ['entries_by_ticket'],
      'the entries keep their index by ticket only',
    );
    const ticketOf = (k: string) => sql.column('SELECT tid FROM idempotency_keys WHERE idempotency_key = $1', k);
    assert.deepEqual(await ticketOf(entry.idempotency_key), [ticket.tid], "the entry's answer keeps its ticket");
    assert.deepEqual(
      await ticketOf(again.idempotency_key),
      [null],
      'a duplicate is found by the index of scans by key',
    );
    const undone = await store.checkIns.annulEntry(
      {
        eid: event.eid,
        target: { scanner_id: key.scanner_id, idempotency_key: entry.idempotency_key },
        annulled_at: at,
        received_at: at,
      },
      (seen) => annulOutcome({ isEntry: seen.isEntry, latest: seen.latest, withinWindow: true }),
    );
    assert.equal(undone.kind, 'annulled');
    assert.deepEqual(
      await sql.column('SELECT annulled_at FROM entries WHERE idempotency_key = $1', entry.idempotency_key),
      [at],
    );
    assert.equal(await statusOf(attempt()), 'valid', 'the ticket is unused again, and a new entry counts');
  } finally {
    await store.close();
  }
}

const pgAvailability = await postgresAvailability('the entries-key migration on PostgreSQL');

describe('migration 38: the entries lose their index by key, each remembered answer keeps its ticket', () => {
  itUnless(undefined)('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'entries-key-migration-'));
    const path = join(dir, 'issuer.db');
    const withDb = <T>(work: (db: Database.Database) => T): T => {
      const db = new Database(path);
      try {
        return work(db);
      } finally {
        db.close();
      }
    };
    try {
      await upgrades(
        async () => new SqliteStore(path),
        {
          exec: async (text) => withDb((db) => void db.exec(text)),
          column: async (text, ...values) =>
            withDb(
              (db) =>
                db
                  .prepare(text.replace(/\$\d+/g, '?'))
                  .pluck()
                  .all(...values) as unknown[],
            ),
        },
        SQLITE_BACK_TO_37,
        "SELECT name FROM pragma_index_list('entries') ORDER BY name",
      );
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
      await upgrades(
        () => PostgresStore.open(database.url),
        {
          exec: (text) => withClient(async (client) => void (await client.query(text))),
          column: (text, ...values) =>
            withClient(async (client) =>
              (await client.query({ text, values, rowMode: 'array' })).rows.map((r) => r[0]),
            ),
        },
        POSTGRES_BACK_TO_37,
        "SELECT indexname FROM pg_indexes WHERE tablename = 'entries' ORDER BY indexname",
      );
    } finally {
      await database.drop();
    }
  });
});
