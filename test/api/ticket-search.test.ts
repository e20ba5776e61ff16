import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

interface TicketPage {
  tickets: { tid: string; holder_name: string; status: string }[];
  next_cursor: string | null;
}

const NAMES = [
  'Ada Lovelace',
  'Alan Turing',
  'ada byron',
  'Grace Hopper',
  'Zoë Ådalen',
  '50% Off',
  'José Pérez',
  "Seán O'Brien",
  'JOSE MARTI',
  'İlkay Gündoğan',
];

await eachBackend('admin API: ticket search (GET /admin/v1/events/{eid}/tickets?q=)', ({ it, issuer, skip }) => {
  let eid = '';
  let tids: string[] = [];
  let byTid: string[] = [];
  /** The given holders in tid order (ids are random: not the order of issue). */
  const inTidOrder = (...wanted: string[]) => byTid.filter((name) => wanted.includes(name));
  const search = (query: string) =>
    adminCall<TicketPage>(issuer().app, 'GET', `/admin/v1/events/${eid}/tickets?${query}`);
  const found = async (q: string) => (await search(`q=${encodeURIComponent(q)}`)).tickets.map((t) => t.holder_name);

  before(async () => {
    if (skip !== undefined) return;
    const app = issuer().app;
    eid = (
      await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
        name: 'Search',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
    const { tickets } = await adminCall<TicketPage>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: NAMES.map((holder_name) => ({ holder_name, ticket_type: 'GA' })),
    });
    tids = tickets.map((t) => t.tid);
    byTid = [...tickets].sort((a, b) => (a.tid < b.tid ? -1 : 1)).map((t) => t.holder_name);
  });

  it('q matches a part of the holder name, whatever the case, in tid order', async () => {
    assert.deepEqual(await found('ADA'), inTidOrder('Ada Lovelace', 'ada byron', 'Zoë Ådalen'));
    assert.deepEqual(await found('lovelace'), ['Ada Lovelace']);
  });

  it("accents, case and punctuation are ignored: jose finds José, obrien finds O'Brien, JOSÉ finds Jose", async () => {
    assert.deepEqual(await found('jose'), inTidOrder('José Pérez', 'JOSE MARTI'));
    assert.deepEqual(await found('JOSÉ'), inTidOrder('José Pérez', 'JOSE MARTI'));
    assert.deepEqual(await found('obrien'), ["Seán O'Brien"]);
    assert.deepEqual(await found("O'BRIEN"), ["Seán O'Brien"]);
    assert.deepEqual(await found('sean obrien'), ["Seán O'Brien"], 'spaces are punctuation too');
    assert.deepEqual(await found('perez'), ['José Pérez']);
    assert.deepEqual(await found('zoe adalen'), ['Zoë Ådalen']);
    assert.deepEqual(await found('ilkay gundogan'), ['İlkay Gündoğan']);
  });

  it('q matches a tid or its beginning, in any case', async () => {
    assert.deepEqual(await found(tids[3]!.toLowerCase()), ['Grace Hopper']);
    assert.deepEqual(await found(tids[3]!.slice(0, 24)), ['Grace Hopper']);
  });

  it('wildcards in q are never wildcards: punctuation is ignored, and q of punctuation alone lists every ticket', async () => {
    assert.deepEqual(await found('50%'), ['50% Off']);
    assert.deepEqual(await found('a_a'), [], 'no holder name holds "aa"');
    assert.deepEqual(await found('l%c'), [], 'no holder name holds "lc" (as a LIKE pattern, Lovelace would match)');
    assert.equal((await found('%')).length, NAMES.length);
  });

  it('results are paged with limit and cursor', async () => {
    const first = await search('q=a&limit=2');
    assert.equal(first.tickets.length, 2);
    assert.ok(first.next_cursor);
    const rest = await search(`q=a&limit=100&cursor=${first.next_cursor}`);
    const all = [...first.tickets, ...rest.tickets].map((t) => t.holder_name);
    assert.deepEqual(
      all,
      inTidOrder(
        'Ada Lovelace',
        'Alan Turing',
        'ada byron',
        'Grace Hopper',
        'Zoë Ådalen',
        "Seán O'Brien",
        'JOSE MARTI',
        'İlkay Gündoğan',
      ),
    );
    assert.equal(rest.next_cursor, null);
  });

  it('an empty or blank q lists every ticket', async () => {
    assert.equal((await search('q=')).tickets.length, NAMES.length);
    assert.equal((await search('q=%20%20')).tickets.length, NAMES.length);
  });

  it('a q over 200 characters or with a control character is 400 INVALID_REQUEST naming q', async () => {
    for (const q of ['x'.repeat(201), 'a%00b']) {
      const res = await issuer().app.inject({
        method: 'GET',
        url: `/admin/v1/events/${eid}/tickets?q=${q}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
      assert.match(JSON.stringify(res.json().error.details), /q/);
    }
  });
});

// An upgrade: tickets stored before the search column existed are found as new ones are.
const EID = 'evt_01JSEARCHUPGRADE000000000';
const OLD_TICKETS = [
  ['01JSEARCHUPGRADE0000000001', 'José Pérez'],
  ['01JSEARCHUPGRADE0000000002', "Seán O'Brien"],
];
const before12 = <T extends { version: number }>(migrations: readonly T[]) => migrations.filter((m) => m.version < 12);
const INSERT_EVENT = `INSERT INTO events (eid, name, event_date, created_at) VALUES ('${EID}', 'Old', '${T0}', '${T0}')`;
const insertTicket = ([tid, holder]: string[]) =>
  `INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, ticket_token)
   VALUES ('${tid}', '${EID}', '${holder!.replace(/'/g, "''")}', 'GA', '${T0}', 'token')`;

function upgradeSuite(
  name: string,
  skip: string | undefined,
  open: () => Promise<{ store: Store; drop: () => Promise<void> }>,
) {
  describe(`ticket search after the upgrade that adds search_name (${name})`, () => {
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

    it('the migration fills the search key of every ticket stored before it', async () => {
      const found = async (q: string) =>
        (await adminCall<TicketPage>(t!.app, 'GET', `/admin/v1/events/${EID}/tickets?q=${q}`)).tickets.map(
          (x) => x.holder_name,
        );
      assert.deepEqual(await found('jose'), ['José Pérez']);
      assert.deepEqual(await found('obrien'), ["Seán O'Brien"]);
    });
  });
}

upgradeSuite('SQLite', undefined, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-search-'));
  const path = join(dir, 'issuer.db');
  const db = new Database(path);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of before12(SQLITE_MIGRATIONS)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(migration.version, T0);
  }
  db.exec(INSERT_EVENT);
  for (const ticket of OLD_TICKETS) db.exec(insertTicket(ticket));
  db.close();
  return { store: new SqliteStore(path), drop: async () => rmSync(dir, { recursive: true, force: true }) };
});

const postgres = await postgresAvailability('ticket search upgrade on PostgreSQL');
upgradeSuite('PostgreSQL', postgres.skip, async () => {
  if (postgres.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${postgres.problem}`);
  const database = await freshDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of before12(POSTGRES_MIGRATIONS)) {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations VALUES ($1, $2)', [migration.version, T0]);
  }
  await client.query(INSERT_EVENT);
  for (const ticket of OLD_TICKETS) await client.query(insertTicket(ticket));
  await client.end();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});
