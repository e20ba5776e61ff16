import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { newEventId } from '../../src/domain/ids.ts';
import type { EventRecord, Store, TicketRecord, TicketTypeRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface TicketTypesSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newTicket: (eid: string, overrides?: Partial<TicketRecord>) => TicketRecord;
  at: (minutes: number) => string;
}

/** The entry rules' part of the one conformance suite: an event's calendar, its declared ticket types, its labels. */
export function ticketTypesConformance(c: TicketTypesSuiteContext): void {
  const { test, store, seed, newTicket, at } = c;

  const declaration = (eid: string, overrides: Partial<TicketTypeRecord> = {}): TicketTypeRecord => ({
    eid,
    ticket_type: 'Weekend',
    valid_days: ['2026-06-05', '2026-06-06'],
    hours: { from: '20:00', until: '02:00' },
    max_entries: 3,
    max_entries_per_day: 1,
    max_days: 2,
    reentry: 'after_exit',
    min_minutes_between_entries: 15,
    attention: true,
    checkin_text: 'Wristband, left arm',
    updated_at: at(1),
    ...overrides,
  });
  /** The rules as `listTicketTypes` answers them: the record without its event and time. */
  const rulesOf = ({ eid: _eid, updated_at: _at, ...rules }: TicketTypeRecord) => rules;

  describe('entry rules: calendar, ticket types, labels', () => {
    test('an event keeps its zone, day start and automatic exit, and each changes alone', async () => {
      const { event } = await seed(0);
      const read = await store().events.getEvent(event.eid);
      assert.deepEqual([read!.timezone, read!.day_starts_at, read!.auto_exit], ['UTC', '00:00', false]);
      const zoned = await store().events.updateEventSettings(event.eid, { timezone: 'Europe/Berlin' });
      assert.deepEqual([zoned!.timezone, zoned!.day_starts_at, zoned!.auto_exit], ['Europe/Berlin', '00:00', false]);
      const early = await store().events.updateEventSettings(event.eid, { day_starts_at: '06:00' });
      assert.deepEqual([early!.timezone, early!.day_starts_at, early!.auto_exit], ['Europe/Berlin', '06:00', false]);
      const auto = await store().events.updateEventSettings(event.eid, { auto_exit: true, reentry: true });
      assert.deepEqual(
        [auto!.timezone, auto!.day_starts_at, auto!.auto_exit, auto!.reentry],
        ['Europe/Berlin', '06:00', true, true],
      );
      const listed = (await store().events.listEvents(1000, null)).items.find((e) => e.eid === event.eid);
      assert.deepEqual([listed!.timezone, listed!.day_starts_at, listed!.auto_exit], ['Europe/Berlin', '06:00', true]);
      const off = await store().events.updateEventSettings(event.eid, { auto_exit: false });
      assert.equal(off!.auto_exit, false);

      const created: EventRecord = {
        ...event,
        eid: newEventId(),
        timezone: 'America/New_York',
        day_starts_at: '05:30',
        auto_exit: true,
      };
      await store().events.createEvent(created);
      assert.deepEqual(await store().events.getEvent(created.eid), created);
    });

    test('a ticket type is declared, replaced under any spelling of its label, listed and removed', async () => {
      const { event } = await seed(0);
      assert.deepEqual(await store().events.listTicketTypes(event.eid), []);
      const weekend = declaration(event.eid);
      const day = declaration(event.eid, {
        ticket_type: 'Day',
        valid_days: null,
        hours: null,
        max_entries: null,
        max_entries_per_day: null,
        max_days: null,
        reentry: null,
        min_minutes_between_entries: null,
        attention: false,
        checkin_text: null,
      });
      await store().events.putTicketType(weekend);
      await store().events.putTicketType(day);
      assert.deepEqual(await store().events.listTicketTypes(event.eid), [rulesOf(day), rulesOf(weekend)]);

      const respelled = declaration(event.eid, { ticket_type: ' WEEKEND', max_entries: 5, reentry: 'any' });
      await store().events.putTicketType(respelled);
      assert.deepEqual(
        await store().events.listTicketTypes(event.eid),
        [rulesOf(day), rulesOf(respelled)],
        'one declaration per label, as rules compare labels; the last spelling kept',
      );

      const other = await seed(0);
      assert.deepEqual(await store().events.listTicketTypes(other.event.eid), [], 'types belong to their event');
      assert.equal(await store().events.deleteTicketType(other.event.eid, 'weekend'), false);
      assert.equal(await store().events.deleteTicketType(event.eid, 'weekend'), true);
      assert.equal(await store().events.deleteTicketType(event.eid, 'weekend'), false);
      assert.deepEqual(await store().events.listTicketTypes(event.eid), [rulesOf(day)]);
    });

    test("an event's labels: each spelling found on its tickets once, revoked ones included, no other event's", async () => {
      const { event } = await seed(0);
      assert.deepEqual(await store().events.listTicketLabels(event.eid), []);
      const labels = ['VIP', 'GA', 'vip ', 'GA', 'Día 1', 'GA', 'Crew'];
      const tickets = labels.map((ticket_type) => newTicket(event.eid, { ticket_type }));
      await store().tickets.createTickets(tickets);
      await store().tickets.revokeTicket(tickets[6]!.tid, at(2), null);
      const other = await seed(0);
      await store().tickets.createTickets([newTicket(other.event.eid, { ticket_type: 'Backstage' })]);
      const found = await store().events.listTicketLabels(event.eid);
      assert.deepEqual([...found].sort(), ['Crew', 'Día 1', 'GA', 'VIP', 'vip ']);
      assert.deepEqual(await store().events.listTicketLabels(other.event.eid), ['Backstage']);
    });
  });
}
