import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { newTicketId } from '../../src/domain/ids.ts';
import type { EventRecord, Store, TicketRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface TicketNotesSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newTicket: (eid: string, overrides?: Partial<TicketRecord>) => TicketRecord;
  at: (minutes: number) => string;
}

/** A ticket's notes for the gate and their `ticket_notes` changes: part of the one conformance suite. */
export function ticketNotesConformance(c: TicketNotesSuiteContext): void {
  const { test, store, seed, newTicket, at } = c;
  const changes = async (eid: string) => (await store().feed.listChanges(eid, 0, 1000)).items;
  const notesOf = (list: Awaited<ReturnType<typeof changes>>) =>
    list.map((x) => [x.position, x.type, x.tid, x.attention, x.checkin_text, x.at]);

  describe('ticket notes', () => {
    test('a ticket created with notes appends one ticket_notes change at its issue; one without, none', async () => {
      const { event } = await seed(0);
      const noted = newTicket(event.eid, { attention: true, checkin_text: 'Wheelchair', issued_at: at(1) });
      const textOnly = newTicket(event.eid, { checkin_text: 'Press', issued_at: at(1) });
      const plain = newTicket(event.eid, { valid_from: at(60) });
      await store().tickets.createTickets([noted, plain, textOnly]);
      assert.deepEqual(notesOf(await changes(event.eid)), [
        [1, 'ticket_notes', noted.tid, true, 'Wheelchair', at(1)],
        [2, 'ticket_notes', textOnly.tid, false, 'Press', at(1)],
      ]);
      const read = await store().tickets.getTicket(plain.tid);
      assert.deepEqual([read!.valid_from, read!.attention, read!.checkin_text], [at(60), false, null]);
      const other = (await changes(event.eid)).find((x) => x.type !== 'ticket_notes');
      assert.equal(other, undefined);
    });

    test('a ticket skipped for its known external_id appends no notes again; new ones follow in order', async () => {
      const { event } = await seed(0);
      const first = newTicket(event.eid, { external_id: 'row-1', attention: true });
      await store().tickets.createTickets([first]);
      const again = newTicket(event.eid, { external_id: 'row-1', attention: true, checkin_text: 'changed' });
      const batch = Array.from({ length: 150 }, (_, i) =>
        newTicket(event.eid, { external_id: `row-${i + 2}`, attention: i % 3 === 0 }),
      );
      const existing = await store().tickets.createTickets([again, ...batch]);
      assert.deepEqual(
        existing.map((t) => [t.tid, t.attention, t.checkin_text]),
        [[first.tid, true, null]],
      );
      const list = await changes(event.eid);
      assert.deepEqual(
        list.map((x) => x.position),
        list.map((_, i) => i + 1),
        'positions without gaps',
      );
      assert.deepEqual(
        list.map((x) => x.tid),
        [first.tid, ...batch.filter((t) => t.attention).map((t) => t.tid)],
      );
    });

    test('updateTicket changes what it is given, appends the notes as set; the same notes, nothing', async () => {
      const { event, tickets } = await seed(1);
      const tid = tickets[0]!.tid;
      assert.equal(await store().tickets.updateTicket(newTicketId(), { attention: true }, at(1)), null);
      const set = await store().tickets.updateTicket(tid, { attention: true, checkin_text: 'VIP' }, at(2));
      assert.deepEqual([set!.attention, set!.checkin_text], [true, 'VIP']);
      const same = await store().tickets.updateTicket(tid, { attention: true }, at(3));
      assert.deepEqual([same!.attention, same!.checkin_text], [true, 'VIP']);
      const cleared = await store().tickets.updateTicket(tid, { checkin_text: null }, at(4));
      assert.deepEqual([cleared!.attention, cleared!.checkin_text], [true, null], 'attention, absent, stays');
      const read = await store().tickets.getTicket(tid);
      assert.deepEqual([read!.attention, read!.checkin_text], [true, null]);
      assert.deepEqual(notesOf(await changes(event.eid)), [
        [1, 'ticket_notes', tid, true, 'VIP', at(2)],
        [2, 'ticket_notes', tid, true, null, at(4)],
      ]);
    });

    test('a ticket keeps its email: created with one, changed, removed; an email change appends no change', async () => {
      const { event } = await seed(0);
      const withEmail = newTicket(event.eid, { email: 'ada@example.org' });
      const without = newTicket(event.eid);
      await store().tickets.createTickets([withEmail, without]);
      assert.equal((await store().tickets.getTicket(withEmail.tid))!.email, 'ada@example.org');
      assert.equal((await store().tickets.getTicket(without.tid))!.email, null);
      const listed = (await store().tickets.listTickets(event.eid, 10, null)).items;
      assert.deepEqual(listed.map((t) => t.email).sort(), ['ada@example.org', null].sort());
      const changed = await store().tickets.updateTicket(without.tid, { email: 'łukasz@example.pl' }, at(1));
      assert.deepEqual([changed!.email, changed!.attention], ['łukasz@example.pl', false]);
      const both = await store().tickets.updateTicket(withEmail.tid, { email: null, attention: true }, at(2));
      assert.deepEqual([both!.email, both!.attention], [null, true]);
      assert.equal((await store().tickets.getTicket(without.tid))!.email, 'łukasz@example.pl');
      assert.equal((await store().tickets.getTicket(withEmail.tid))!.email, null);
      assert.deepEqual(notesOf(await changes(event.eid)), [[1, 'ticket_notes', withEmail.tid, true, null, at(2)]]);
    });

    test('concurrent changes of one ticket apply one after the other: the feed’s last change holds its notes', async () => {
      const { event, tickets } = await seed(1);
      const tid = tickets[0]!.tid;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store().tickets.updateTicket(
            tid,
            i % 2 === 0 ? { checkin_text: `text ${i}` } : { attention: i % 4 === 1 },
            at(10 + i),
          ),
        ),
      );
      const ticket = await store().tickets.getTicket(tid);
      const list = await changes(event.eid);
      assert.ok(list.length >= 1 && list.length <= 20);
      assert.deepEqual(
        list.map((x) => x.position),
        list.map((_, i) => i + 1),
      );
      const last = list[list.length - 1]!;
      assert.deepEqual([last.attention, last.checkin_text], [ticket!.attention, ticket!.checkin_text]);
    });
  });
}
