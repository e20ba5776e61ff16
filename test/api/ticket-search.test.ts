import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminCall, testIssuer, type TestIssuer } from '../helpers/app.ts';

interface TicketPage {
  tickets: { tid: string; holder_name: string; status: string }[];
  next_cursor: string | null;
}

describe('admin API: ticket search (GET /admin/v1/events/{eid}/tickets?q=)', () => {
  let issuer: TestIssuer;
  let eid = '';
  let tids: string[] = [];
  let byTid: string[] = [];
  /** The given holders in tid order (ids are random: not the order of issue). */
  const inTidOrder = (...wanted: string[]) => byTid.filter((name) => wanted.includes(name));
  const search = (query: string) =>
    adminCall<TicketPage>(issuer.app, 'GET', `/admin/v1/events/${eid}/tickets?${query}`);

  before(async () => {
    issuer = await testIssuer();
    eid = (
      await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
        name: 'Search',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
    const names = ['Ada Lovelace', 'Alan Turing', 'ada byron', 'Grace Hopper', 'Zoë Ådalen', '50% Off'];
    const { tickets } = await adminCall<TicketPage>(issuer.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: names.map((holder_name) => ({ holder_name, ticket_type: 'GA' })),
    });
    tids = tickets.map((t) => t.tid);
    byTid = [...tickets].sort((a, b) => (a.tid < b.tid ? -1 : 1)).map((t) => t.holder_name);
  });
  after(async () => issuer.close());

  it('q matches a part of the holder name, whatever the case, in tid order', async () => {
    assert.deepEqual(
      (await search('q=ADA')).tickets.map((t) => t.holder_name),
      inTidOrder('Ada Lovelace', 'ada byron'),
    );
    assert.deepEqual(
      (await search('q=%C3%A5dal')).tickets.map((t) => t.holder_name),
      ['Zoë Ådalen'],
    );
  });

  it('q matches a tid or its beginning, in any case', async () => {
    assert.deepEqual(
      (await search(`q=${tids[3]!.toLowerCase()}`)).tickets.map((t) => t.holder_name),
      ['Grace Hopper'],
    );
  });

  it('wildcards in q are taken literally', async () => {
    assert.deepEqual(
      (await search('q=%25')).tickets.map((t) => t.holder_name),
      ['50% Off'],
    );
    assert.deepEqual((await search('q=_')).tickets, []);
  });

  it('results are paged with limit and cursor', async () => {
    const first = await search('q=a&limit=2');
    assert.equal(first.tickets.length, 2);
    assert.ok(first.next_cursor);
    const rest = await search(`q=a&limit=100&cursor=${first.next_cursor}`);
    const all = [...first.tickets, ...rest.tickets].map((t) => t.holder_name);
    assert.deepEqual(all, inTidOrder('Ada Lovelace', 'Alan Turing', 'ada byron', 'Grace Hopper', 'Zoë Ådalen'));
    assert.equal(rest.next_cursor, null);
  });

  it('an empty or blank q lists every ticket', async () => {
    assert.equal((await search('q=')).tickets.length, 6);
    assert.equal((await search('q=%20%20')).tickets.length, 6);
  });

  it('a q over 200 characters or with a control character is 400 INVALID_REQUEST naming q', async () => {
    for (const q of ['x'.repeat(201), 'a%00b']) {
      const res = await issuer.app.inject({
        method: 'GET',
        url: `/admin/v1/events/${eid}/tickets?q=${q}`,
        headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
      });
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
      assert.match(JSON.stringify(res.json().error.details), /q/);
    }
  });
});
