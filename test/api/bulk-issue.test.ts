import assert from 'node:assert/strict';
import { adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

/**
 * The most tickets one request may issue, on each store: written in parts inside one transaction (no
 * statement carries them all), counted once, and a second import of the same rows creates nothing.
 */
await eachBackend('issuing 10,000 tickets in one request', ({ it, issuer }) => {
  const app = () => issuer().app;
  const rows = (prefix: string) =>
    Array.from({ length: 10_000 }, (_, i) => ({
      holder_name: `Guest ${i}`,
      ticket_type: i % 10 === 0 ? 'VIP' : 'GA',
      external_id: `${prefix}-${i}`,
      ...(i % 500 === 0 ? { attention: true } : {}),
    }));
  const issue = (eid: string, tickets: unknown[], expected: number) =>
    adminCall<{ tickets: { tid: string; external_id: string }[]; skipped: { external_id: string }[] }>(
      app(),
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      { tickets },
      expected,
    );
  const issued = async (eid: string) =>
    (await adminCall<{ counters: { issued: number } }>(app(), 'GET', `/admin/v1/events/${eid}`)).counters.issued;

  /** Every ticket of the event, read page by page. */
  async function listed(eid: string): Promise<string[]> {
    const tids: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page: { tickets: { tid: string }[]; next_cursor: string | null } = await adminCall(
        app(),
        'GET',
        `/admin/v1/events/${eid}/tickets?limit=1000${query}`,
      );
      tids.push(...page.tickets.map((ticket) => ticket.tid));
      cursor = page.next_cursor;
    } while (cursor !== null);
    return tids;
  }

  it('all 10,000 are created, answered in the order asked, and counted', async () => {
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Stadium',
      event_date: '2026-07-01T19:00:00Z',
    });
    const answer = await issue(eid, rows('order'), 201);
    assert.equal(answer.tickets.length, 10_000);
    assert.deepEqual(answer.skipped, []);
    assert.deepEqual(
      answer.tickets.map((ticket) => ticket.external_id),
      rows('order').map((row) => row.external_id),
    );
    assert.equal(await issued(eid), 10_000);
    const tids = await listed(eid);
    assert.equal(new Set(tids).size, 10_000);
    assert.deepEqual([...tids].sort(), answer.tickets.map((ticket) => ticket.tid).sort());
  });

  it('the same 10,000 again (a CSV imported twice) create nothing: each is answered as skipped', async () => {
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Stadium again',
      event_date: '2026-07-01T19:00:00Z',
    });
    await issue(eid, rows('again'), 201);
    const second = await issue(eid, rows('again'), 200);
    assert.deepEqual([second.tickets.length, second.skipped.length], [0, 10_000]);
    assert.equal(await issued(eid), 10_000);
    assert.equal((await listed(eid)).length, 10_000);
  });
});
