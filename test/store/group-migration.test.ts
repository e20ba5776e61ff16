import assert from 'node:assert/strict';
import { onEachStoreFile } from '../helpers/store-files.ts';
import type { Store } from '../../src/store/store.ts';
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

await onEachStoreFile('migration 34 gives every earlier ticket a short code and a place in the roster', (file) =>
  upgradeGivesCodes(file.open, () => file.exec(file.backend === 'SQLite' ? SQLITE_FORGET : POSTGRES_FORGET)),
);
