import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { ROWS_PER_STATEMENT } from '../../src/store/chunks.ts';
import type { EventRecord, Store, TicketRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface BulkTicketsSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newTicket: (eid: string, overrides?: Partial<TicketRecord>) => TicketRecord;
}

/** More tickets than one statement carries: two whole parts and one ticket more. */
const MANY = ROWS_PER_STATEMENT * 2 + 1;

/**
 * Tickets created in parts (a statement per ROWS_PER_STATEMENT rows) stay one transaction: all or
 * none, whichever part fails, and a known external_id is answered, never created again, in any part.
 */
export function bulkTicketsConformance(c: BulkTicketsSuiteContext): void {
  const { test, store, seed, newTicket } = c;
  const feedOf = async (eid: string) => (await store().feed.listChanges(eid, 0, 10_000)).items;

  describe('tickets created in parts', () => {
    test('createTickets of more rows than one statement carries fails whole on a duplicate tid in the last part', async () => {
      const { event } = await seed(0);
      const batch = Array.from({ length: MANY }, (_, i) =>
        newTicket(event.eid, { external_id: `row-${i}`, attention: i % 100 === 0 }),
      );
      batch[MANY - 1] = { ...batch[0]!, external_id: 'row-last', holder_name: 'Twin' };
      await assert.rejects(store().tickets.createTickets(batch));
      assert.equal((await store().events.countTickets(event.eid)).issued, 0);
      assert.deepEqual((await store().tickets.listTickets(event.eid, 10, null)).items, [], 'nothing created');
      for (const i of [0, ROWS_PER_STATEMENT, MANY - 2])
        assert.equal(await store().tickets.getTicket(batch[i]!.tid), null);
      assert.deepEqual(await feedOf(event.eid), [], 'no ticket_notes change');
    });

    test('a tid the store holds already, in the last part: nothing of the call is created', async () => {
      const { event, tickets } = await seed(1);
      const batch = Array.from({ length: MANY }, () => newTicket(event.eid));
      batch[MANY - 1] = { ...tickets[0]!, holder_name: 'Twin' };
      await assert.rejects(store().tickets.createTickets(batch));
      assert.equal((await store().events.countTickets(event.eid)).issued, 1);
      assert.equal(await store().tickets.getTicket(batch[0]!.tid), null);
      assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), tickets[0]);
    });

    test('external_ids known in any part are answered, the others created once; counts and notes follow', async () => {
      const { event } = await seed(0);
      const first = Array.from({ length: ROWS_PER_STATEMENT + 5 }, (_, i) =>
        newTicket(event.eid, { external_id: `row-${String(i).padStart(5, '0')}` }),
      );
      assert.deepEqual(await store().tickets.createTickets(first), []);
      // Again, shuffled among new rows: the known ones spread over several parts.
      const again = Array.from({ length: MANY }, (_, i) =>
        newTicket(event.eid, { external_id: `row-${String(i * 2).padStart(5, '0')}`, attention: i % 2 === 1 }),
      ).reverse();
      const known = new Set(first.map((ticket) => ticket.external_id));
      const existing = await store().tickets.createTickets(again);
      const expected = first.filter((ticket) => again.some((other) => other.external_id === ticket.external_id));
      assert.deepEqual(
        existing.map((ticket) => ticket.tid).sort(),
        expected.map((ticket) => ticket.tid).sort(),
        'the first import’s tickets answered',
      );
      const created = again.filter((ticket) => !known.has(ticket.external_id));
      assert.equal((await store().events.countTickets(event.eid)).issued, first.length + created.length);
      assert.deepEqual(await store().tickets.getTicket(created.at(-1)!.tid), created.at(-1));
      assert.deepEqual(
        (await feedOf(event.eid)).map((change) => change.tid),
        created.filter((ticket) => ticket.attention).map((ticket) => ticket.tid),
        'one ticket_notes change per new noted ticket, in the order asked',
      );
    });
  });
}
