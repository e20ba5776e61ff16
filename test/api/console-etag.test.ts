import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall, checkInBody, postCheckIn, scenario, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { personWithRole } from '../helpers/people.ts';

/**
 * The console's polls: every 200 answer of a GET on the admin API carries an ETag; the same request
 * with If-None-Match naming it is answered 304 without a body while the answer is the same, and 200
 * with the new answer as soon as it changed (a check-in, a ticket with an email: the counts are kept,
 * read fresh at each request). A tag is of the answer made for its caller: a viewer never gets a 304
 * for what an owner was shown.
 */

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

await eachBackend('console reads revalidated by ETag', ({ it, issuer }) => {
  const app = () => issuer().app;
  const get = (url: string, headers: Record<string, string> = admin) => app().inject({ method: 'GET', url, headers });

  it('a read again with its tag answers 304 without a body; a changed answer comes back whole', async () => {
    const s = await scenario(app());
    const paths = [
      `/admin/v1/events/${s.eid}`,
      `/admin/v1/events/${s.eid}/occupancy`,
      `/admin/v1/events/${s.eid}/arrivals`,
      `/admin/v1/events/${s.eid}/scans/recent?limit=50&include=holder_name`,
      `/admin/v1/events/${s.eid}/scanners`,
      `/admin/v1/events/${s.eid}/conflicts?limit=20`,
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      `/admin/v1/events/${s.eid}/deliveries?limit=1`,
    ];
    const tags = new Map<string, string>();
    for (const path of paths) {
      const first = await get(path);
      assert.equal(first.statusCode, 200, `${path}: ${first.body}`);
      const etag = first.headers.etag as string;
      assert.match(etag, /^"[\w-]{27}"$/, path);
      assert.equal(first.headers['cache-control'], 'no-store', 'kept by the console, not by the browser');
      const again = await get(path, { ...admin, 'if-none-match': etag });
      assert.equal(again.statusCode, 304, path);
      assert.equal(again.body, '', path);
      assert.equal(again.headers.etag, etag, path);
      // Another tag, or a weak form of this one.
      assert.equal((await get(path, { ...admin, 'if-none-match': '"other"' })).statusCode, 200, path);
      assert.equal((await get(path, { ...admin, 'if-none-match': `"x", W/${etag}` })).statusCode, 304, path);
      tags.set(path, etag);
    }

    const checkedIn = await postCheckIn(app(), s.apiKey, checkInBody(s, T0));
    assert.equal(checkedIn.statusCode, 200, checkedIn.body);
    const changed = new Set<string>();
    for (const path of paths) {
      const res = await get(path, { ...admin, 'if-none-match': tags.get(path)! });
      if (res.statusCode === 200) changed.add(path.replace(`/admin/v1/events/${s.eid}`, '') || '/');
      else assert.equal(res.statusCode, 304, path);
    }
    // The counters, occupancy, arrivals and the scan log moved at once; scanners, conflicts and tokens did not.
    assert.deepEqual(
      [...changed].sort(),
      ['/', '/arrivals', '/occupancy', '/scans/recent?limit=50&include=holder_name'].sort(),
    );
    const event = (await get(`/admin/v1/events/${s.eid}`)).json() as Json;
    assert.equal(event.counters.checked_in, 1);

    // A ticket with an email shows in the email numbers at the next read.
    const emails = `/admin/v1/events/${s.eid}/deliveries?limit=1`;
    await adminCall(app(), 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      holder_name: 'Grace Hopper',
      ticket_type: 'GA',
      email: 'grace@example.org',
    });
    const counted = await get(emails, { ...admin, 'if-none-match': tags.get(emails)! });
    assert.equal(counted.statusCode, 200);
    assert.deepEqual((counted.json() as Json).counts, { with_email: 1, queued: 0, sent: 0, failed: 0 });
  });

  it("a viewer's answer has its own tag: an owner's tag never gets a viewer a 304", async () => {
    const s = await scenario(app());
    const viewer = await personWithRole(app(), 'viewer');
    const path = `/admin/v1/tickets/${s.tid}`;
    const owner = await get(path);
    assert.equal(owner.statusCode, 200);
    assert.ok('ticket_token' in (owner.json() as Json));
    const seen = await get(path, { ...viewer.session, 'if-none-match': owner.headers.etag as string });
    assert.equal(seen.statusCode, 200, 'the viewer gets its own answer');
    assert.ok(!('ticket_token' in (seen.json() as Json)), 'without the token');
    assert.notEqual(seen.headers.etag, owner.headers.etag);
    const again = await get(path, { ...viewer.session, 'if-none-match': seen.headers.etag as string });
    assert.equal(again.statusCode, 304);
  });

  it('errors and writes carry no tag', async () => {
    const missing = await get('/admin/v1/events/evt_nope', { ...admin, 'if-none-match': '*' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers.etag, undefined);
    const created = await app().inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: admin,
      payload: { name: 'Tagless', event_date: '2026-06-02T18:00:00Z' },
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers.etag, undefined);
  });
});
