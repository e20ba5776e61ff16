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
import { newEvent, newTicket } from './conformance.ts';

/** What migration 34 added, taken away again, as a store from before it had its tables. */
const COMMON_FORGET = `DROP TABLE roster_counters;
  ALTER TABLE tickets DROP COLUMN order_ref; ALTER TABLE tickets DROP COLUMN short_code;
  ALTER TABLE tickets DROP COLUMN roster_version; ALTER TABLE api_keys DROP COLUMN clock_offset_s;
  DELETE FROM schema_migrations WHERE version = 34;`;
const SQLITE_FORGET = `DROP TRIGGER tickets_roster_changed; DROP INDEX tickets_by_short_code;
  DROP INDEX tickets_by_order; DROP INDEX tickets_by_roster; ${COMMON_FORGET}`;
const POSTGRES_FORGET = `DROP TRIGGER tickets_roster_changed ON tickets; DROP FUNCTION tickets_roster_stamp();
  ${COMMON_FORGET}`;

/**
 * Tickets issued before migration 34 get a random short code each, distinct within their event, and
 * stand at the start of the roster; a change of one afterwards moves it up, as for new tickets.
 */
async function upgradeGivesCodes(open: () => Promise<Store>, forget: () => Promise<void>): Promise<void> {
  let store = await open();
  const event = newEvent();
  await store.events.createEvent(event);
  const tickets = Array.from({ length: 300 }, () => newTicket(event.eid));
  await store.tickets.createTickets(tickets);
  await store.close();
  await forget();
  store = await open();
  try {
    const page = await store.roster.listRoster(event.eid, null, 1000);
    assert.equal(page.items.length, 300);
    const codes = page.items.map((item) => item.ticket.short_code);
    for (const code of codes) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{10}$/);
    assert.equal(new Set(codes).size, 300, 'distinct within the event');
    const before = new Map(tickets.map((t) => [t.tid, t.short_code]));
    assert.ok(
      page.items.every((item) => item.ticket.short_code !== before.get(item.ticket.tid)),
      'new codes, not the ones the tickets were made with',
    );
    assert.ok(page.items.every((item) => item.position.version === 0 && item.ticket.order_ref === null));
    const last = page.items[page.items.length - 1]!.position;
    await store.tickets.revokeTicket(tickets[7]!.tid, '2026-06-01T13:00:00.000Z', null);
    const changed = await store.roster.listRoster(event.eid, last, 1000);
    assert.deepEqual(
      changed.items.map((item) => item.ticket.tid),
      [tickets[7]!.tid],
    );
    const found = await store.roster.findByShortCode(event.eid, codes[0]!);
    assert.equal(found?.tid, page.items[0]!.ticket.tid);
  } finally {
    await store.close();
  }
}

const pgAvailability = await postgresAvailability('group migration on PostgreSQL');

describe('migration 34 gives every earlier ticket a short code and a place in the roster', () => {
  itUnless(undefined)('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'group-migration-'));
    const path = join(dir, 'issuer.db');
    try {
      await upgradeGivesCodes(
        async () => new SqliteStore(path),
        async () => {
          const db = new Database(path);
          db.exec(SQLITE_FORGET);
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
      await upgradeGivesCodes(
        () => PostgresStore.open(database.url),
        async () => {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          await client.query(POSTGRES_FORGET);
          await client.end();
        },
      );
    } finally {
      await database.drop();
    }
  });
});
