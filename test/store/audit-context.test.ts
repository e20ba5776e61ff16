import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { outsideAudit, pendingAudit, type PendingAudit, withAudit } from '../../src/store/audit-context.ts';
import type { AuditStore } from '../../src/store/audit-store.ts';
import { postgresAudit } from '../../src/store/postgres/audit.ts';
import { migrate as migratePostgres } from '../../src/store/postgres/migrations.ts';
import { auditedPool, transaction } from '../../src/store/postgres/transaction.ts';
import { sqliteAudit } from '../../src/store/sqlite/audit.ts';
import type { SqliteContext } from '../../src/store/sqlite/context.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

/** A pending entry as the HTTP layer makes one. */
const pendingEntry = (action: string): PendingAudit => ({
  record: {
    at: '2026-06-01T12:00:00.000Z',
    user_id: null,
    actor_name: 'admin token',
    via: 'admin_token',
    action,
    target: null,
    eid: null,
    ip: '127.0.0.1',
    details: {},
  },
  eventOf: null,
  state: 'open',
});

/** How one store writes: a single statement, and a read; `trail` reads the entries back. */
interface Writer {
  write: (sql: string, ...values: unknown[]) => Promise<unknown>;
  trail: () => AuditStore;
}

const actions = async (trail: AuditStore) =>
  (await trail.list({ eid: null, user_id: null, limit: 100, before: null })).items.map((e) => e.action);

function contextRules(name: string, run: ReturnType<typeof itUnless>, writer: () => Writer): void {
  run(
    `${name}: a lone write records the entry with it; a read, or a write that matched no row, records nothing`,
    async () => {
      const { write, trail } = writer();
      await withAudit(pendingEntry('test.read'), () => write("SELECT value FROM settings WHERE name = 'x'"));
      await withAudit(pendingEntry('test.nothing'), () =>
        write("UPDATE settings SET value = 'v' WHERE name = 'nowhere'"),
      );
      await withAudit(pendingEntry('test.insert'), async () => {
        await write("INSERT INTO settings (name, value) VALUES ('audit-a', '1')");
        // A second change of the same request adds no second entry.
        await write("UPDATE settings SET value = '2' WHERE name = 'audit-a'");
      });
      assert.deepEqual(await actions(trail()), ['test.insert']);
    },
  );

  run(`${name}: work the request left running, or ran outside its entry, records nothing`, async () => {
    const { write, trail } = writer();
    const before = await actions(trail());
    let late: Promise<unknown> = Promise.resolve();
    await withAudit(pendingEntry('test.late'), async () => {
      await outsideAudit(() => write("INSERT INTO settings (name, value) VALUES ('audit-b', '1')"));
      late = sleep(20).then(() => write("INSERT INTO settings (name, value) VALUES ('audit-c', '1')"));
    });
    await late;
    assert.deepEqual(await actions(trail()), before);
  });

  run(`${name}: a write still running when another one settles records its entry all the same`, async () => {
    const { write, trail } = writer();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = withAudit(pendingEntry('test.slow'), async () => {
      await held;
      await write("INSERT INTO settings (name, value) VALUES ('audit-e', '1')");
    });
    // Settles first: between admin writes the storage is turned off, and must not be while one runs.
    await withAudit(pendingEntry('test.quick'), () =>
      write("INSERT INTO settings (name, value) VALUES ('audit-f', '1')"),
    );
    release();
    await slow;
    // Once none runs, work outside any write finds no entry.
    await write("INSERT INTO settings (name, value) VALUES ('audit-g', '1')");
    assert.deepEqual((await actions(trail())).slice(0, 2), ['test.slow', 'test.quick']);
    assert.equal(pendingAudit(), null);
  });
}

describe('audit entries on SQLite', () => {
  // The store's own connection and helpers (its migrations need the functions the store registers).
  const store = new SqliteStore(':memory:');
  const c = (store as unknown as { ctx: SqliteContext }).ctx;
  contextRules('SQLite', itUnless(undefined), () => ({
    write: async (sql) => (c.statement(sql).reader ? c.all(sql) : c.run(sql)),
    trail: () => sqliteAudit(c),
  }));
  after(() => store.close());
});

const availability = await postgresAvailability('PostgreSQL audit context tests');

describe('audit entries on PostgreSQL', () => {
  const run = itUnless(availability.skip);
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  before(async () => {
    if (availability.skip !== undefined) return;
    database = await freshDatabase();
    pool = auditedPool(new pg.Pool({ connectionString: database.url }));
    await migratePostgres(pool);
  });
  after(async () => {
    await pool?.end();
    await database?.drop();
  });
  const writer = (): Writer => ({
    write: (sql) => pool!.query(sql),
    trail: () => postgresAudit(pool!, (work) => transaction(pool!, work)),
  });
  contextRules('PostgreSQL', run, writer);

  run('PostgreSQL: a change made by a data-modifying WITH under a SELECT is recorded', async () => {
    const { write, trail } = writer();
    await withAudit(pendingEntry('test.with'), () =>
      write(
        `WITH added AS (INSERT INTO settings (name, value) VALUES ('audit-d', '1') RETURNING name) SELECT name FROM added`,
      ),
    );
    await withAudit(pendingEntry('test.tx'), () =>
      transaction(pool!, async (client) => {
        await client.query(
          `WITH gone AS (DELETE FROM settings WHERE name = 'audit-d' RETURNING name) SELECT count(*) FROM gone`,
        );
      }),
    );
    assert.deepEqual((await actions(trail())).slice(0, 2), ['test.tx', 'test.with']);
  });
});
