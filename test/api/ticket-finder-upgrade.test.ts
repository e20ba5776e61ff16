import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { searchKey } from '../../src/store/search-key.ts';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { adminCall, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

// An upgrade: tickets stored before the words column existed are ranked by their words as new ones are.
const EID = 'evt_01JF1NDERUPGRADE000000000';
const OLD_TICKETS = [
  ['01JF1NDERUPGRADE0000000001', 'Al Ferberg'],
  ['01JF1NDERUPGRADE0000000002', 'Eva Bergmann'],
];
const before21 = <T extends { version: number }>(migrations: readonly T[]) => migrations.filter((m) => m.version < 21);
const INSERT_EVENT = `INSERT INTO events (eid, name, event_date, created_at) VALUES ('${EID}', 'Old', '${T0}', '${T0}')`;
const insertTicket = ([tid, holder]: string[]) =>
  `INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, ticket_token, search_name)
   VALUES ('${tid}', '${EID}', '${holder!}', 'GA', '${T0}', 'token', '${searchKey(holder!)}')`;

function upgradeSuite(
  name: string,
  skip: string | undefined,
  open: () => Promise<{ store: Store; drop: () => Promise<void> }>,
) {
  describe(`finding a holder after the upgrade that adds search_words (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer | undefined;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      if (skip !== undefined) return;
      const opened = await open();
      drop = opened.drop;
      t = await testIssuer({ store: opened.store });
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    it('the migration fills the words of every ticket stored before it: a word start ranks first', async () => {
      const { token } = await adminCall<{ token: string }>(
        t!.app,
        'POST',
        `/admin/v1/events/${EID}/enrollment-tokens`,
        {
          allow_search: true,
        },
      );
      const enrolled = await t!.app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token, scanner_id: randomUUID() },
      });
      const res = await t!.app.inject({
        method: 'GET',
        url: `/api/v1/events/${EID}/tickets/search?q=berg`,
        headers: { authorization: `Bearer ${enrolled.json().api_key}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      // Without the words, the shorter name (Al Ferberg) would come first.
      assert.deepEqual(
        res.json().tickets.map((x: { holder_name: string }) => x.holder_name),
        ['Eva Bergmann', 'Al Ferberg'],
      );
    });
  });
}

upgradeSuite('SQLite', undefined, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-finder-'));
  const path = join(dir, 'issuer.db');
  const db = new Database(path);
  db.function('search_key', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? searchKey(text) : text,
  );
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of before21(SQLITE_MIGRATIONS)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(migration.version, T0);
  }
  db.exec(INSERT_EVENT);
  for (const ticket of OLD_TICKETS) db.exec(insertTicket(ticket));
  db.close();
  return { store: new SqliteStore(path), drop: async () => rmSync(dir, { recursive: true, force: true }) };
});

const postgres = await postgresAvailability('finding a holder after the upgrade on PostgreSQL');
upgradeSuite('PostgreSQL', postgres.skip, async () => {
  if (postgres.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${postgres.problem}`);
  const database = await freshDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of before21(POSTGRES_MIGRATIONS)) {
    await client.query(migration.sql);
    await migration.fill?.(client as unknown as pg.PoolClient);
    if (migration.after) await client.query(migration.after);
    await client.query('INSERT INTO schema_migrations VALUES ($1, $2)', [migration.version, T0]);
  }
  await client.query(INSERT_EVENT);
  for (const ticket of OLD_TICKETS) await client.query(insertTicket(ticket));
  await client.end();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});
