import assert from 'node:assert/strict';
import type { EventRecord, Store, TicketRecord } from '../../src/store/store.ts';
import type { ClaimedDelivery, DeliveryResult } from '../../src/store/delivery-records.ts';

/** What the main conformance suite lends to this part of it. */
export interface DeliverySuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newTicket: (eid: string, overrides?: Partial<TicketRecord>) => TicketRecord;
}

/** Real time: PostgreSQL times leases and retries by its own clock. */
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The mail outbox: part of the one conformance suite. */
export function deliveryConformance(c: DeliverySuiteContext): void {
  const { test, store, seed, newTicket } = c;
  const d = () => store().deliveries;
  /** An event with `withEmail` tickets that have an email and one that has none. */
  const event = async (withEmail = 3) => {
    const { event } = await seed(0);
    const tickets = Array.from({ length: withEmail }, (_, i) =>
      newTicket(event.eid, { email: `holder${i}@example.org` }),
    );
    const without = newTicket(event.eid, { email: null });
    await store().tickets.createTickets([...tickets, without]);
    return { eid: event.eid, tickets, without };
  };
  const mine = async (eid: string) =>
    (await d().claimDeliveries({ now: now(), leaseSeconds: 60, limit: 10_000 })).filter((x) => x.eid === eid);
  const ended = (claimed: ClaimedDelivery, outcome: DeliveryResult['outcome']): DeliveryResult => ({
    tid: claimed.tid,
    lease_token: claimed.lease_token,
    ended_at: now(),
    outcome,
  });
  const listed = async (eid: string) => (await d().listDeliveries(eid, null, 1000, null)).items;

  test('deliveries: queueing takes the tickets with an email, once; a second queue adds none', async () => {
    const { eid, tickets, without } = await event(3);
    assert.deepEqual(await d().queueDeliveries({ eid, tids: null, resend: false, now: now() }), {
      queued: 3,
      unknown: [],
    });
    assert.deepEqual(await d().queueDeliveries({ eid, tids: null, resend: true, now: now() }), {
      queued: 0,
      unknown: [],
    });
    const items = await listed(eid);
    assert.deepEqual(
      items.map((x) => x.tid),
      tickets.map((t) => t.tid).sort(),
    );
    assert.ok(
      items.every((x) => x.status === 'queued' && x.attempts === 0 && x.sent_at === null && x.last_error === null),
    );
    assert.equal(items.find((x) => x.tid === tickets[1]!.tid)!.email, 'holder1@example.org');
    assert.ok(!items.some((x) => x.tid === without.tid));
    assert.ok((await d().countQueuedDeliveries()) >= 3);
  });

  test('deliveries: an unknown tid of the event queues nothing and is named', async () => {
    const { eid, tickets } = await event(2);
    const other = await event(1);
    const answer = await d().queueDeliveries({
      eid,
      tids: [tickets[0]!.tid, other.tickets[0]!.tid],
      resend: false,
      now: now(),
    });
    assert.deepEqual(answer, { queued: 0, unknown: [other.tickets[0]!.tid] });
    assert.deepEqual(await listed(eid), []);
    assert.deepEqual(await d().queueDeliveries({ eid, tids: [tickets[1]!.tid], resend: false, now: now() }), {
      queued: 1,
      unknown: [],
    });
  });

  test('deliveries: a claim takes each due one once under a lease; sent, retried and failed ends are recorded', async () => {
    const { eid, tickets } = await event(3);
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    const claimed = await mine(eid);
    assert.equal(claimed.length, 3);
    assert.deepEqual(await mine(eid), [], 'under a live lease: not claimed again');
    const [a, b, c2] = [...claimed].sort((x, y) => (x.tid < y.tid ? -1 : 1)) as [
      ClaimedDelivery,
      ClaimedDelivery,
      ClaimedDelivery,
    ];
    await d().finishDeliveries([
      ended(a, { status: 'sent' }),
      ended(b, { status: 'queued', retry_after_s: 1, error: '451 try later' }),
      ended(c2, { status: 'failed', error: '550 no such user' }),
    ]);
    const byTid = new Map((await listed(eid)).map((x) => [x.tid, x]));
    assert.equal(byTid.get(a.tid)!.status, 'sent');
    assert.ok(byTid.get(a.tid)!.sent_at !== null);
    assert.deepEqual(
      [byTid.get(b.tid)!.status, byTid.get(b.tid)!.attempts, byTid.get(b.tid)!.last_error],
      ['queued', 1, '451 try later'],
    );
    assert.deepEqual([byTid.get(c2.tid)!.status, byTid.get(c2.tid)!.last_error], ['failed', '550 no such user']);
    assert.deepEqual(await mine(eid), [], 'the retry is not due yet');
    await sleep(1100);
    const again = await mine(eid);
    assert.deepEqual(
      again.map((x) => [x.tid, x.attempts]),
      [[b.tid, 1]],
    );
    const summaries = await d().deliverySummaries(tickets.map((t) => t.tid));
    assert.equal(summaries.get(a.tid)!.status, 'sent');
    assert.equal(summaries.get(c2.tid)!.status, 'failed');
    assert.equal(summaries.size, 3);
  });

  test('deliveries: a result under a lapsed claim is ignored once another claim took it', async () => {
    const { eid } = await event(1);
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    const [first] = await d()
      .claimDeliveries({ now: now(), leaseSeconds: 0.5, limit: 10_000 })
      .then((all) => all.filter((x) => x.eid === eid));
    await sleep(700);
    const [second] = await mine(eid);
    assert.ok(first && second && first.lease_token !== second.lease_token, 'the lapsed lease was claimed again');
    await d().finishDeliveries([ended(first, { status: 'failed', error: 'old' })]);
    assert.equal((await listed(eid))[0]!.status, 'queued');
    await d().finishDeliveries([ended(second, { status: 'sent' })]);
    assert.equal((await listed(eid))[0]!.status, 'sent');
  });

  test('deliveries: without resend only failed ones go again; with resend sent ones too; lists filter by status and page', async () => {
    const { eid, tickets } = await event(3);
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    const claimed = (await mine(eid)).sort((x, y) => (x.tid < y.tid ? -1 : 1));
    await d().finishDeliveries([
      ended(claimed[0]!, { status: 'sent' }),
      ended(claimed[1]!, { status: 'failed', error: '550' }),
      ended(claimed[2]!, { status: 'sent' }),
    ]);
    assert.deepEqual(
      (await d().listDeliveries(eid, 'sent', 1000, null)).items.map((x) => x.tid),
      [claimed[0]!.tid, claimed[2]!.tid],
    );
    const first = await d().listDeliveries(eid, null, 2, null);
    assert.equal(first.items.length, 2);
    const rest = await d().listDeliveries(eid, null, 2, first.next_cursor);
    assert.deepEqual(
      [...first.items, ...rest.items].map((x) => x.tid),
      tickets.map((t) => t.tid).sort(),
    );
    assert.equal(rest.next_cursor, null);
    assert.deepEqual(await d().queueDeliveries({ eid, tids: null, resend: false, now: now() }), {
      queued: 1,
      unknown: [],
    });
    const requeued = (await listed(eid)).find((x) => x.tid === claimed[1]!.tid)!;
    assert.deepEqual([requeued.status, requeued.attempts, requeued.last_error], ['queued', 0, null]);
    assert.deepEqual(await d().queueDeliveries({ eid, tids: [claimed[0]!.tid], resend: true, now: now() }), {
      queued: 1,
      unknown: [],
    });
    assert.equal((await listed(eid)).find((x) => x.tid === claimed[0]!.tid)!.sent_at, null);
  });

  test('deliveries: two workers claiming at once never take one delivery twice', async () => {
    const { eid } = await event(40);
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    const claims = await Promise.all(Array.from({ length: 4 }, () => mine(eid)));
    const tids = claims.flat().map((x) => x.tid);
    assert.equal(tids.length, 40);
    assert.equal(new Set(tids).size, 40);
  });

  test('deliveries: the counts cover the tickets with an email and not revoked; summaries carry the failure', async () => {
    const { eid, tickets } = await event(4);
    assert.deepEqual(await d().countDeliveries(eid), { with_email: 4, queued: 0, sent: 0, failed: 0 });
    await d().queueDeliveries({ eid, tids: tickets.slice(0, 3).map((t) => t.tid), resend: false, now: now() });
    const claimed = (await mine(eid)).sort((x, y) => (x.tid < y.tid ? -1 : 1));
    await d().finishDeliveries([
      ended(claimed[0]!, { status: 'sent' }),
      ended(claimed[1]!, { status: 'failed', error: '550 no such user' }),
    ]);
    assert.deepEqual(await d().countDeliveries(eid), { with_email: 4, queued: 1, sent: 1, failed: 1 });
    const summaries = await d().deliverySummaries([claimed[0]!.tid, claimed[1]!.tid]);
    assert.equal(summaries.get(claimed[1]!.tid)!.last_error, '550 no such user');
    assert.equal(summaries.get(claimed[0]!.tid)!.last_error, null);
    // A revoked ticket no longer counts, nor does its email.
    await store().tickets.revokeTicket(claimed[0]!.tid, now(), null);
    assert.deepEqual(await d().countDeliveries(eid), { with_email: 3, queued: 1, sent: 0, failed: 1 });
    assert.deepEqual(await d().countDeliveries('no-such-event'), { with_email: 0, queued: 0, sent: 0, failed: 0 });
  });

  test('deliveries: the counts are kept through every change: import, email set and removed, sends, retries, revocation', async () => {
    const { eid, tickets, without } = await event(5);
    const other = await event(2);
    const counts = () => d().countDeliveries(eid);
    // A statement of many tickets (an import) counts each of them once.
    const more = Array.from({ length: 30 }, (_, i) =>
      newTicket(eid, { email: i % 3 === 0 ? null : `more${i}@example.org` }),
    );
    await store().tickets.createTickets(more);
    assert.deepEqual(await counts(), { with_email: 25, queued: 0, sent: 0, failed: 0 });
    // An email given to a ticket that had none, another one changed, a third taken away.
    await store().tickets.updateTicket(without.tid, { email: 'late@example.org' }, now());
    await store().tickets.updateTicket(tickets[4]!.tid, { email: 'moved@example.org' }, now());
    assert.deepEqual(await counts(), { with_email: 26, queued: 0, sent: 0, failed: 0 });
    await store().tickets.updateTicket(tickets[3]!.tid, { email: null }, now());
    assert.deepEqual(await counts(), { with_email: 25, queued: 0, sent: 0, failed: 0 });
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    assert.deepEqual(await counts(), { with_email: 25, queued: 25, sent: 0, failed: 0 });
    const claimed = (await mine(eid)).sort((x, y) => (x.tid < y.tid ? -1 : 1));
    assert.equal(claimed.length, 25);
    await d().finishDeliveries([
      ...claimed.slice(0, 10).map((x) => ended(x, { status: 'sent' })),
      ...claimed.slice(10, 14).map((x) => ended(x, { status: 'failed', error: '550' })),
      ...claimed.slice(14, 16).map((x) => ended(x, { status: 'queued', retry_after_s: 60, error: '451' })),
    ]);
    assert.deepEqual(await counts(), { with_email: 25, queued: 11, sent: 10, failed: 4 });
    // Failed ones queued again; sent ones again with resend.
    await d().queueDeliveries({ eid, tids: null, resend: false, now: now() });
    assert.deepEqual(await counts(), { with_email: 25, queued: 15, sent: 10, failed: 0 });
    await d().queueDeliveries({ eid, tids: [claimed[0]!.tid, claimed[1]!.tid], resend: true, now: now() });
    assert.deepEqual(await counts(), { with_email: 25, queued: 17, sent: 8, failed: 0 });
    // A revoked ticket leaves the numbers with its delivery; a revocation again changes nothing.
    await store().tickets.revokeTicket(claimed[2]!.tid, now(), null);
    await store().tickets.revokeTicket(claimed[2]!.tid, now(), null);
    await store().tickets.revokeTicket(claimed[0]!.tid, now(), null);
    assert.deepEqual(await counts(), { with_email: 23, queued: 16, sent: 7, failed: 0 });
    // The other event's numbers are its own.
    assert.deepEqual(await d().countDeliveries(other.eid), { with_email: 2, queued: 0, sent: 0, failed: 0 });
  });
}
