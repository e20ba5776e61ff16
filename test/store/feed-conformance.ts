import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { newEventId, newTicketId } from '../../src/domain/ids.ts';
import type { CheckInAttempt, CheckInVerdict, EventRecord, Store, TicketRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface FeedSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newAttempt: (eid: string, tid: string, overrides?: Partial<CheckInAttempt>) => CheckInAttempt;
  gateDecider: (checkInAt: string) => (ticket: TicketRecord | null) => CheckInVerdict;
  at: (minutes: number) => string;
}

/** The changes feed, reissue and the conflicts report: part of the one conformance suite. */
export function feedConformance(c: FeedSuiteContext): void {
  const { test, store, seed, newAttempt, gateDecider, at } = c;
  const changes = async (eid: string, after = 0, limit = 1000) =>
    (await store().feed.listChanges(eid, after, limit)).items;

  describe('changes feed', () => {
    test('a check-in appends one checked_in change; replays and double scans append none', async () => {
      const { event, tickets } = await seed(1);
      const tid = tickets[0]!.tid;
      const first = newAttempt(event.eid, tid, { scanner_id: 'scanner-7', gate_id: 'north' });
      await store().checkIns.checkIn(first, gateDecider(at(5)));
      await store().checkIns.checkIn(first, gateDecider(at(5)));
      await store().checkIns.checkIn(newAttempt(event.eid, tid), gateDecider(at(9)));
      assert.deepEqual(await changes(event.eid), [
        {
          eid: event.eid,
          position: 1,
          type: 'checked_in',
          tid,
          at: at(5),
          scanner_id: 'scanner-7',
          gate_id: 'north',
          jti: null,
          idempotency_key: first.idempotency_key,
        },
      ]);
    });

    test('the first revocation appends one revoked change; a second one and an unknown tid append none', async () => {
      const { event, tickets } = await seed(1);
      const tid = tickets[0]!.tid;
      await store().tickets.revokeTicket(tid, at(10), 'refund');
      await store().tickets.revokeTicket(tid, at(11), 'again');
      assert.equal(await store().tickets.revokeTicket(newTicketId(), at(12), null), null);
      const list = await changes(event.eid);
      assert.deepEqual(
        list.map((x) => [x.position, x.type, x.tid, x.at]),
        [[1, 'revoked', tid, at(10)]],
      );
    });

    test('positions count 1, 2, 3… per event, without gaps, whatever else is written', async () => {
      const a = await seed(3);
      const b = await seed(2);
      await store().checkIns.checkIn(newAttempt(a.event.eid, a.tickets[0]!.tid), gateDecider(at(5)));
      await store().checkIns.checkIn(newAttempt(b.event.eid, b.tickets[0]!.tid), gateDecider(at(5)));
      await store().tickets.revokeTicket(a.tickets[1]!.tid, at(6), null);
      // A not-found attempt and an expired verdict change nothing.
      await store().checkIns.checkIn(newAttempt(a.event.eid, newTicketId()), gateDecider(at(5)));
      await store().tickets.revokeTicket(b.tickets[1]!.tid, at(7), null);
      await store().checkIns.checkIn(newAttempt(a.event.eid, a.tickets[2]!.tid), gateDecider(at(8)));
      assert.deepEqual(
        (await changes(a.event.eid)).map((x) => [x.position, x.type]),
        [
          [1, 'checked_in'],
          [2, 'revoked'],
          [3, 'checked_in'],
        ],
      );
      assert.deepEqual(
        (await changes(b.event.eid)).map((x) => x.position),
        [1, 2],
      );
      assert.deepEqual(await changes(newEventId()), []);
    });

    test('listChanges pages after a position with has_more', async () => {
      const { event, tickets } = await seed(5);
      for (const t of tickets) await store().checkIns.checkIn(newAttempt(event.eid, t.tid), gateDecider(at(5)));
      const first = await store().feed.listChanges(event.eid, 0, 2);
      assert.deepEqual(
        first.items.map((x) => x.position),
        [1, 2],
      );
      assert.equal(first.has_more, true);
      const rest = await store().feed.listChanges(event.eid, 2, 10);
      assert.deepEqual(
        rest.items.map((x) => x.position),
        [3, 4, 5],
      );
      assert.equal(rest.has_more, false);
      assert.deepEqual(await store().feed.listChanges(event.eid, 5, 10), { items: [], has_more: false });
    });

    test('40 concurrent check-ins of different tickets take positions 1 to 40, each ticket once', async () => {
      const { event, tickets } = await seed(40);
      await Promise.all(tickets.map((t) => store().checkIns.checkIn(newAttempt(event.eid, t.tid), gateDecider(at(5)))));
      const list = await changes(event.eid);
      assert.deepEqual(
        list.map((x) => x.position),
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.deepEqual(list.map((x) => x.tid).sort(), tickets.map((t) => t.tid).sort());
    });
  });

  describe('reissue', () => {
    test('reissueTicket replaces the token and appends token_superseded with the old jti', async () => {
      const { event, tickets } = await seed(1);
      const ticket = tickets[0]!;
      const result = await store().tickets.reissueTicket(
        ticket.tid,
        ticket.ticket_token,
        'new.token.value',
        'old-jti',
        at(3),
      );
      assert.deepEqual(result, { kind: 'reissued', ticket: { ...ticket, ticket_token: 'new.token.value' } });
      assert.equal((await store().tickets.getTicket(ticket.tid))!.ticket_token, 'new.token.value');
      assert.deepEqual(
        (await changes(event.eid)).map((x) => [x.type, x.tid, x.jti, x.at]),
        [['token_superseded', ticket.tid, 'old-jti', at(3)]],
      );
    });

    test('reissueTicket refuses an unknown, revoked, used or meanwhile replaced ticket and changes nothing', async () => {
      const { event, tickets } = await seed(3);
      const [revoked, used, fresh] = tickets as [TicketRecord, TicketRecord, TicketRecord];
      await store().tickets.revokeTicket(revoked.tid, at(1), null);
      await store().checkIns.checkIn(newAttempt(event.eid, used.tid), gateDecider(at(2)));
      const before = await changes(event.eid);
      const refuse = (t: TicketRecord | null, previous: string) =>
        store().tickets.reissueTicket(t?.tid ?? newTicketId(), previous, 'x.y.z', null, at(4));
      assert.deepEqual(await refuse(null, 'a.b.c'), { kind: 'refused', why: 'unknown' });
      assert.deepEqual(await refuse(revoked, revoked.ticket_token), { kind: 'refused', why: 'revoked' });
      assert.deepEqual(await refuse(used, used.ticket_token), { kind: 'refused', why: 'used' });
      assert.deepEqual(await refuse(fresh, 'stale.token.value'), { kind: 'refused', why: 'changed' });
      assert.equal((await store().tickets.getTicket(fresh.tid))!.ticket_token, fresh.ticket_token);
      assert.deepEqual(await changes(event.eid), before);
    });

    test('six concurrent reissueTicket calls replacing one token: exactly one reissues, five are refused as changed', async () => {
      const { event, tickets } = await seed(1);
      const ticket = tickets[0]!;
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store().tickets.reissueTicket(ticket.tid, ticket.ticket_token, `new.token.${i}`, 'old-jti', at(3)),
        ),
      );
      const won = results.filter((r) => r.kind === 'reissued');
      assert.equal(won.length, 1);
      assert.deepEqual(
        results.filter((r) => r.kind === 'refused'),
        Array.from({ length: 5 }, () => ({ kind: 'refused', why: 'changed' })),
      );
      assert.equal((await store().tickets.getTicket(ticket.tid))!.ticket_token, won[0]!.ticket.ticket_token);
      assert.equal((await changes(event.eid)).filter((x) => x.type === 'token_superseded').length, 1);
    });
  });

  describe('conflicts report', () => {
    /** A ticket checked in at minute 5 (received at 6) by scanner-A. */
    async function checkedIn(ticketCount = 1) {
      const seeded = await seed(ticketCount);
      for (const t of seeded.tickets) {
        await store().checkIns.checkIn(
          newAttempt(seeded.event.eid, t.tid, { scanner_id: 'scanner-A', gate_id: 'north' }),
          gateDecider(at(5)),
        );
      }
      return seeded;
    }
    const duplicate = (
      eid: string,
      tid: string,
      scannedAt: number,
      receivedAt: number,
      offline: boolean | null = null,
      scannerId = 'scanner-B',
    ) =>
      store().checkIns.checkIn(
        newAttempt(eid, tid, {
          scanner_id: scannerId,
          gate_id: 'south',
          scanned_at: at(scannedAt),
          received_at: at(receivedAt),
          admitted_offline: offline,
        }),
        gateDecider(at(scannedAt)),
      );

    test('a double scan at a gate after the valid check-in was recorded is not a conflict', async () => {
      const { event, tickets } = await checkedIn();
      await duplicate(event.eid, tickets[0]!.tid, 7, 7);
      assert.deepEqual((await store().feed.listConflicts(event.eid, 100, null)).items, []);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 0);
    });

    test('an already_used scan admitted offline is a conflict, with both scans named', async () => {
      const { event, tickets } = await checkedIn();
      await duplicate(event.eid, tickets[0]!.tid, 30, 40, true);
      const { items, next_cursor } = await store().feed.listConflicts(event.eid, 100, null);
      assert.equal(next_cursor, null);
      assert.deepEqual(items, [
        {
          tid: tickets[0]!.tid,
          holder_name: tickets[0]!.holder_name,
          first: {
            scanner_id: 'scanner-A',
            scanner_name: 'Gate A phone',
            gate_id: 'north',
            scanned_at: at(5),
            received_at: at(6),
            admitted_offline: false,
          },
          duplicates: [
            {
              scanner_id: 'scanner-B',
              scanner_name: 'Gate A phone',
              gate_id: 'south',
              scanned_at: at(30),
              received_at: at(40),
              admitted_offline: true,
              reason: null,
            },
          ],
        },
      ]);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 1);
    });

    test('an already_used scan made before the valid check-in reached the issuer is a conflict', async () => {
      const { event, tickets } = await checkedIn();
      // Scanned at minute 4, before the valid one was received at minute 6: that scanner could not know.
      await duplicate(event.eid, tickets[0]!.tid, 4, 20);
      const { items } = await store().feed.listConflicts(event.eid, 100, null);
      assert.equal(items.length, 1);
      assert.equal(items[0]!.duplicates[0]!.admitted_offline, false);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 1);
    });

    test('an already_used scan turned away offline (admitted_offline false) is never a conflict', async () => {
      const { event, tickets } = await checkedIn();
      await duplicate(event.eid, tickets[0]!.tid, 4, 20, false);
      assert.deepEqual((await store().feed.listConflicts(event.eid, 100, null)).items, []);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 0);
    });

    test("a scanner's own repeat of a ticket it checked in is never a conflict", async () => {
      const { event, tickets } = await checkedIn();
      await duplicate(event.eid, tickets[0]!.tid, 4, 20, null, 'scanner-A');
      await duplicate(event.eid, tickets[0]!.tid, 4, 21, true, 'scanner-A');
      assert.deepEqual((await store().feed.listConflicts(event.eid, 100, null)).items, []);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 0);
    });

    test('the scan log names each scanner by its enrolled name and keeps admitted_offline', async () => {
      const { event, tickets } = await checkedIn();
      await duplicate(event.eid, tickets[0]!.tid, 30, 40, true);
      const { items } = await store().checkIns.listScans(event.eid, 100, null);
      assert.deepEqual(
        items.map((x) => [x.scanner_id, x.scanner_name, x.outcome, x.admitted_offline]),
        [
          ['scanner-A', 'Gate A phone', 'valid', false],
          ['scanner-B', 'Gate A phone', 'already_used', true],
        ],
      );
    });

    test('replays are not duplicates, and a ticket with two conflicting scans is counted once', async () => {
      const { event, tickets } = await checkedIn();
      const tid = tickets[0]!.tid;
      const offline = newAttempt(event.eid, tid, {
        scanner_id: 'scanner-B',
        admitted_offline: true,
        received_at: at(9),
      });
      await store().checkIns.checkIn(offline, gateDecider(at(5)));
      await store().checkIns.checkIn(offline, gateDecider(at(5)));
      await duplicate(event.eid, tid, 3, 10);
      const { items } = await store().feed.listConflicts(event.eid, 100, null);
      assert.equal(items.length, 1);
      assert.equal(items[0]!.duplicates.length, 2);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 1);
    });

    test('listConflicts pages in the order of the valid check-ins', async () => {
      const { event, tickets } = await checkedIn(3);
      for (const t of tickets) await duplicate(event.eid, t.tid, 8, 9, true);
      const first = await store().feed.listConflicts(event.eid, 2, null);
      assert.deepEqual(
        first.items.map((x) => x.tid),
        tickets.slice(0, 2).map((t) => t.tid),
      );
      assert.notEqual(first.next_cursor, null);
      const second = await store().feed.listConflicts(event.eid, 2, Number(first.next_cursor));
      assert.deepEqual(
        second.items.map((x) => x.tid),
        [tickets[2]!.tid],
      );
      assert.equal(second.next_cursor, null);
      assert.equal((await store().events.countTickets(event.eid)).conflicts, 3);
    });
  });
}
