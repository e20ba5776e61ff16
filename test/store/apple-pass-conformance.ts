import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { EventRecord, Store, TicketRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface ApplePassSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  at: (minutes: number) => string;
}

const PASS_TYPE = 'pass.test.tickets';
let devices = 0;
/** A device id and push token of their own for each test (the suite shares one store). */
const device = () => {
  devices += 1;
  return { id: `device-${devices}-${Date.now()}`, token: `push-${devices}-${Date.now()}` };
};

/** Apple Wallet registrations, pass changes and the push outbox: part of the one conformance suite. */
export function applePassConformance(c: ApplePassSuiteContext): void {
  const { test, store, seed, at } = c;
  const passes = () => store().applePasses;
  const register = (d: { id: string; token: string }, serial: string, token = d.token) =>
    passes().registerApplePassDevice({
      device_id: d.id,
      pass_type_id: PASS_TYPE,
      serial,
      push_token: token,
      at: at(1),
    });
  const now = () => new Date(Date.now() + 5_000).toISOString();

  describe('Apple Wallet passes', () => {
    test('a registration is created once; registering again updates its push token', async () => {
      const { tickets } = await seed(1);
      const d = device();
      assert.equal(await register(d, tickets[0]!.tid), 'created');
      assert.equal(await register(d, tickets[0]!.tid, `${d.token}-new`), 'updated');
      const concurrent = await Promise.all([register(device(), tickets[0]!.tid), register(d, tickets[0]!.tid)]);
      assert.deepEqual(concurrent, ['created', 'updated']);
      assert.equal(await passes().unregisterApplePassDevice(d.id, PASS_TYPE, tickets[0]!.tid), true);
      assert.equal(await passes().unregisterApplePassDevice(d.id, PASS_TYPE, tickets[0]!.tid), false);
    });

    test("a pass never changed counts from its ticket's issue; a device lists its serials changed since", async () => {
      const { tickets } = await seed(2);
      const [a, b] = tickets as [TicketRecord, TicketRecord];
      const d = device();
      await register(d, a.tid);
      await register(d, b.tid);
      assert.equal(await passes().applePassChangedAt(a.tid), a.issued_at);
      assert.equal(await passes().applePassChangedAt('tkt_unknown'), null);
      const all = await passes().listApplePassSerials(d.id, PASS_TYPE, null);
      assert.deepEqual(all.serials, [a.tid, b.tid].sort());
      assert.equal(all.lastUpdated, a.issued_at);
      const none = await passes().listApplePassSerials(d.id, PASS_TYPE, all.lastUpdated);
      assert.deepEqual(none, { serials: [], lastUpdated: null });
      assert.deepEqual((await passes().listApplePassSerials(d.id, 'pass.other', null)).serials, []);
    });

    test('revoke, reissue and new notes each mark the pass changed, a whole second later each time', async () => {
      const { tickets } = await seed(1);
      const t = tickets[0]!;
      const d = device();
      await register(d, t.tid);
      const before = await passes().listApplePassSerials(d.id, PASS_TYPE, null);
      const marks: string[] = [];
      await store().tickets.updateTicket(t.tid, { checkin_text: 'Wheelchair' }, at(2));
      marks.push((await passes().applePassChangedAt(t.tid))!);
      const reissued = await store().tickets.reissueTicket(t.tid, t.ticket_token, `${t.ticket_token}x`, null, at(3));
      assert.equal(reissued.kind, 'reissued');
      marks.push((await passes().applePassChangedAt(t.tid))!);
      await store().tickets.revokeTicket(t.tid, at(4), 'refund');
      marks.push((await passes().applePassChangedAt(t.tid))!);
      for (const mark of marks) assert.match(mark, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      assert.ok(marks[0]! < marks[1]! && marks[1]! < marks[2]!, marks.join(' '));
      assert.ok(Date.parse(marks[2]!) - Date.parse(marks[0]!) >= 2000);
      const since = await passes().listApplePassSerials(d.id, PASS_TYPE, before.lastUpdated);
      assert.deepEqual(since, { serials: [t.tid], lastUpdated: marks[2] });
      // The same notes again, or only the email (not on the pass), change nothing: no mark, no push.
      await store().tickets.updateTicket(t.tid, { checkin_text: 'Wheelchair' }, at(5));
      await store().tickets.updateTicket(t.tid, { email: 'ada@example.org' }, at(6));
      assert.equal((await store().tickets.getTicket(t.tid))!.email, 'ada@example.org');
      assert.equal(await passes().applePassChangedAt(t.tid), marks[2]);
      assert.equal((await passes().listApplePushes(d.token)).length, 3);
    });

    test('each change enqueues one push per registered device, claimed once under a lease', async () => {
      const { tickets } = await seed(1);
      const t = tickets[0]!;
      const [d1, d2] = [device(), device()];
      await register(d1, t.tid);
      await register(d2, t.tid);
      await store().tickets.revokeTicket(t.tid, at(4), null);
      const [first, second] = await Promise.all([
        passes().claimApplePushes({ now: now(), leaseSeconds: 60, limit: 100 }),
        passes().claimApplePushes({ now: now(), leaseSeconds: 60, limit: 100 }),
      ]);
      const mine = [...first!, ...second!].filter((p) => p.push_token === d1.token || p.push_token === d2.token);
      assert.deepEqual(mine.map((p) => p.push_token).sort(), [d1.token, d2.token].sort());
      assert.ok(mine.every((p) => p.pass_type_id === PASS_TYPE && p.attempts === 0 && p.lease_owner.length > 0));
      // Under lease: nobody else takes them until it runs out.
      const again = await passes().claimApplePushes({ now: now(), leaseSeconds: 60, limit: 100 });
      assert.equal(again.filter((p) => p.push_token === d1.token).length, 0);
      const p1 = mine.find((p) => p.push_token === d1.token)!;
      const p2 = mine.find((p) => p.push_token === d2.token)!;
      await passes().finishApplePushes([
        {
          push_id: p1.push_id,
          lease_owner: p1.lease_owner,
          outcome: 'sent',
          error: null,
          at: now(),
          next_attempt_at: null,
        },
        { push_id: p2.push_id, lease_owner: 'stale', outcome: 'sent', error: null, at: now(), next_attempt_at: null },
      ]);
      assert.deepEqual(
        (await passes().listApplePushes(d1.token)).map((p) => [p.state, p.attempts]),
        [['sent', 1]],
      );
      assert.deepEqual(
        (await passes().listApplePushes(d2.token)).map((p) => [p.state, p.attempts]),
        [['pending', 0]],
      );
      // The lease over, the push is due again for whoever claims first.
      const later = new Date(Date.now() + 120_000).toISOString();
      const retaken = await passes().claimApplePushes({ now: later, leaseSeconds: 60, limit: 100 });
      assert.ok(retaken.some((p) => p.push_id === p2.push_id));
    });

    test('a retry is due at its time; a failure ends it; an unregistered push token loses its registrations', async () => {
      const { tickets } = await seed(2);
      const [a, b] = tickets as [TicketRecord, TicketRecord];
      const d = device();
      await register(d, a.tid);
      await register(d, b.tid);
      await store().tickets.revokeTicket(a.tid, at(4), null);
      const claimOf = async (when: string) =>
        (await passes().claimApplePushes({ now: when, leaseSeconds: 60, limit: 1000 })).find(
          (p) => p.push_token === d.token,
        );
      const first = (await claimOf(now()))!;
      const retryAt = new Date(Date.now() + 60_000).toISOString();
      await passes().finishApplePushes([
        {
          push_id: first.push_id,
          lease_owner: first.lease_owner,
          outcome: 'retry',
          error: 'HTTP 503',
          at: now(),
          next_attempt_at: retryAt,
        },
      ]);
      assert.equal(await claimOf(now()), undefined);
      const second = (await claimOf(new Date(Date.parse(retryAt) + 1).toISOString()))!;
      assert.deepEqual([second.push_id, second.attempts], [first.push_id, 1]);
      await passes().finishApplePushes([
        {
          push_id: second.push_id,
          lease_owner: second.lease_owner,
          outcome: 'unregistered',
          error: 'HTTP 410 Unregistered',
          at: now(),
          next_attempt_at: null,
        },
      ]);
      assert.deepEqual(
        (await passes().listApplePushes(d.token)).map((p) => [p.state, p.attempts, p.last_error]),
        [['failed', 2, 'HTTP 410 Unregistered']],
      );
      assert.deepEqual((await passes().listApplePassSerials(d.id, PASS_TYPE, null)).serials, []);
      // Without registrations, a change enqueues nothing for that device.
      await store().tickets.revokeTicket(b.tid, at(5), null);
      assert.equal((await passes().listApplePushes(d.token)).length, 1);
      assert.equal((await passes().purgeApplePushes(new Date(Date.now() + 3_600_000).toISOString(), 1000)) >= 1, true);
      assert.deepEqual(await passes().listApplePushes(d.token), []);
    });
  });
}
