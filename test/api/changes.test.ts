import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  adminCall,
  checkInBody,
  enrollScanner,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { followFeed, getChanges } from '../helpers/feed.ts';

describe('GET /api/v1/events/{eid}/changes', () => {
  let t: TestIssuer;
  let s: Scenario;

  before(async () => {
    t = await testIssuer();
  });
  beforeEach(async () => {
    s = await scenario(t.app, { gateId: 'north' });
  });
  after(() => t.close());

  it('lists checked_in (with its entry’s idempotency key), revoked and token_superseded entries in the order they happened', async () => {
    const [second, third] = (
      await adminCall<{ tickets: { tid: string; ticket_token: string }[] }>(
        t.app,
        'POST',
        `/admin/v1/events/${s.eid}/tickets`,
        { tickets: [1, 2].map((i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
      )
    ).tickets as [{ tid: string; ticket_token: string }, { tid: string; ticket_token: string }];
    const entry = checkInBody(s, '2026-06-01T11:59:30Z', { gate_id: 'north' });
    const scanned = await postCheckIn(t.app, s.apiKey, entry);
    assert.equal(scanned.json().status, 'valid');
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${second.tid}/revoke`, { reason: 'refund' });
    const oldJti = JSON.parse(Buffer.from(third.ticket_token.split('.')[1]!, 'base64url').toString()).jti;
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${third.tid}/reissue`, {}, 200);
    const res = await getChanges(t.app, s.apiKey, s.eid);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.changes, [
      {
        type: 'checked_in',
        tid: s.tid,
        at: '2026-06-01T11:59:30Z',
        scanner_id: s.scannerId,
        gate_id: 'north',
        idempotency_key: entry.idempotency_key,
      },
      { type: 'revoked', tid: second.tid, at: T0.replace('.000Z', 'Z') },
      { type: 'token_superseded', tid: third.tid, jti: oldJti, at: T0.replace('.000Z', 'Z') },
    ]);
    assert.equal(body.has_more, false);
    assert.equal(typeof body.next_cursor, 'string');
  });

  it('next_cursor is always present; passed back as after, it returns only later changes', async () => {
    const empty = (await getChanges(t.app, s.apiKey, s.eid)).json();
    assert.deepEqual(empty.changes, []);
    assert.equal(empty.has_more, false);
    assert.equal(typeof empty.next_cursor, 'string');
    await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
    const next = (await getChanges(t.app, s.apiKey, s.eid, `?after=${empty.next_cursor}`)).json();
    assert.deepEqual(
      next.changes.map((c: { type: string }) => c.type),
      ['checked_in'],
    );
    const after = (await getChanges(t.app, s.apiKey, s.eid, `?after=${next.next_cursor}`)).json();
    assert.deepEqual(after.changes, []);
    assert.equal(after.next_cursor, next.next_cursor, 'at the end the cursor stays where it was');
  });

  it('pages with limit and has_more; a client following next_cursor sees each change once', async () => {
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      { tickets: Array.from({ length: 7 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    );
    for (const ticket of tickets) await adminCall(t.app, 'POST', `/admin/v1/tickets/${ticket.tid}/revoke`);
    const first = (await getChanges(t.app, s.apiKey, s.eid, '?limit=3')).json();
    assert.equal(first.changes.length, 3);
    assert.equal(first.has_more, true);
    const { seen } = await followFeed(t.app, s.apiKey, s.eid, 3);
    assert.deepEqual(
      seen.map((c) => c.tid),
      tickets.map((x) => x.tid),
    );
  });

  it('a malformed cursor or limit is 400 INVALID_REQUEST naming the field', async () => {
    const cases: [string, string][] = [
      ['?after=garbage', 'after'],
      ['?after=YzE6LTE', 'after'],
      [`?after=${Buffer.from('c1:1x').toString('base64url')}`, 'after'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=abc', 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await getChanges(t.app, s.apiKey, s.eid, query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().error.code, 'INVALID_REQUEST', query);
      assert.match(JSON.stringify(res.json().error.details), new RegExp(field), query);
    }
  });

  it("another event's feed is 403 FORBIDDEN; no key or a wrong key is 401", async () => {
    const other = await scenario(t.app);
    const res = await getChanges(t.app, s.apiKey, other.eid);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
    assert.equal((await t.app.inject({ url: `/api/v1/events/${s.eid}/changes` })).statusCode, 401);
    assert.equal((await getChanges(t.app, `sk_live_${'x'.repeat(43)}`, s.eid)).statusCode, 401);
  });

  it('is listed in the discovery document', async () => {
    const doc = (await t.app.inject({ url: '/.well-known/ticket-issuer.json' })).json();
    assert.equal(doc.endpoints.changes, 'https://issuer.test/api/v1/events/{eid}/changes');
  });

  it('a follower polling during 60 concurrent check-ins by three scanners sees every check-in exactly once', async () => {
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      { tickets: Array.from({ length: 60 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    );
    const scanners = [s, { ...s, scannerId: randomUUID() }, { ...s, scannerId: randomUUID() }];
    for (const scanner of scanners.slice(1))
      Object.assign(scanner, await enrollScanner(t.app, s.eid, scanner.scannerId));
    let done = false;
    const seen: Record<string, unknown>[] = [];
    const follower = (async () => {
      let cursor: string | undefined;
      while (!done || cursor === undefined) {
        const page = await followFeed(t.app, s.apiKey, s.eid, 7, cursor);
        seen.push(...page.seen);
        cursor = page.cursor;
        await new Promise((resolve) => setImmediate(resolve));
      }
      seen.push(...(await followFeed(t.app, s.apiKey, s.eid, 7, cursor)).seen);
    })();
    await Promise.all(
      tickets.map((ticket, i) => {
        const scanner = scanners[i % 3]!;
        return postCheckIn(t.app, scanner.apiKey, checkInBody({ ...scanner, tid: ticket.tid }, T0));
      }),
    );
    done = true;
    await follower;
    assert.deepEqual(seen.map((c) => c.tid).sort(), tickets.map((x) => x.tid).sort());
  });
});
