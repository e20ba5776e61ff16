import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { getChanges } from '../helpers/feed.ts';

/** The form of cursor handed out before cursors named their event. */
const firstFormCursor = (position: number) => Buffer.from(`c1:${position}`).toString('base64url');

describe('a changes-feed cursor belongs to its event', () => {
  let t: TestIssuer;
  let a: Scenario;
  let b: Scenario;

  /** Two more tickets of the scenario's event, revoked: two more changes in its feed. */
  async function twoRevocations(s: Scenario): Promise<string[]> {
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      { tickets: [1, 2].map((i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    );
    for (const ticket of tickets) await adminCall(t.app, 'POST', `/admin/v1/tickets/${ticket.tid}/revoke`, {});
    return tickets.map((x) => x.tid);
  }

  before(async () => {
    t = await testIssuer();
    a = await scenario(t.app);
    b = await scenario(t.app);
    assert.equal((await postCheckIn(t.app, a.apiKey, checkInBody(a, T0))).json().status, 'valid');
    assert.equal((await postCheckIn(t.app, b.apiKey, checkInBody(b, T0))).json().status, 'valid');
  });
  after(() => t.close());

  it("another event's cursor is 400 INVALID_REQUEST naming after", async () => {
    const start = (await getChanges(t.app, a.apiKey, a.eid, '?limit=1')).json();
    const res = await getChanges(t.app, b.apiKey, b.eid, `?after=${start.next_cursor}`);
    assert.equal(res.statusCode, 400, res.body);
    const { error } = res.json();
    assert.equal(error.code, 'INVALID_REQUEST');
    assert.deepEqual(error.details.fields, [{ field: 'after', problem: 'a cursor of another event' }]);
    assert.match(error.message, /another event/);
    const own = await getChanges(t.app, a.apiKey, a.eid, `?after=${start.next_cursor}`);
    assert.equal(own.statusCode, 200, 'the same cursor still serves its own event');
  });

  it('the cursor of an empty feed belongs to its event too', async () => {
    const c = await scenario(t.app);
    const empty = (await getChanges(t.app, c.apiKey, c.eid)).json();
    assert.deepEqual(empty.changes, []);
    const res = await getChanges(t.app, a.apiKey, a.eid, `?after=${empty.next_cursor}`);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'INVALID_REQUEST');
  });

  it('a cursor handed out before cursors named their event still works, and the answer gives one that does', async () => {
    const revoked = await twoRevocations(a);
    const old = await getChanges(t.app, a.apiKey, a.eid, `?after=${firstFormCursor(1)}&limit=1`);
    assert.equal(old.statusCode, 200, old.body);
    const page = old.json();
    assert.deepEqual(
      page.changes.map((c: { tid: string }) => c.tid),
      [revoked[0]],
    );
    assert.notEqual(page.next_cursor, firstFormCursor(2), 'the next cursor is of the new form');
    const next = (await getChanges(t.app, a.apiKey, a.eid, `?after=${page.next_cursor}`)).json();
    assert.deepEqual(
      next.changes.map((c: { tid: string }) => c.tid),
      [revoked[1]],
    );
    const elsewhere = await getChanges(t.app, b.apiKey, b.eid, `?after=${page.next_cursor}`);
    assert.equal(elsewhere.statusCode, 400, 'and that one belongs to its event');
  });

  it('a malformed cursor of either form is still 400 naming after', async () => {
    const good = (await getChanges(t.app, a.apiKey, a.eid)).json().next_cursor as string;
    const decoded = Buffer.from(good, 'base64url').toString('latin1');
    const bad = [
      Buffer.from('c1:007').toString('base64url'),
      Buffer.from(`${decoded}x`).toString('base64url'),
      `${good}=`,
    ];
    for (const cursor of bad) {
      const res = await getChanges(t.app, a.apiKey, a.eid, `?after=${encodeURIComponent(cursor)}`);
      assert.equal(res.statusCode, 400, `${cursor}: ${res.body}`);
      assert.deepEqual(res.json().error.details.fields, [{ field: 'after', problem: 'not a cursor of this feed' }]);
    }
  });
});
