import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN_TOKEN,
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

interface Page {
  next_cursor: string | null;
  has_more: boolean;
  [items: string]: unknown;
}

describe('one paging shape for every admin list', () => {
  let t: TestIssuer;
  let s: Scenario;
  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
    for (let i = 0; i < 2; i++) await scenario(t.app);
    for (let i = 0; i < 2; i++) await enrollScanner(t.app, s.eid, randomUUID());
    await adminCall(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      tickets: [1, 2].map((i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })),
    });
    for (let i = 0; i < 3; i++) await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
  });
  after(() => t.close());

  const lists = () =>
    [
      ['/admin/v1/events', 'events'],
      [`/admin/v1/events/${s.eid}/tickets`, 'tickets'],
      [`/admin/v1/events/${s.eid}/scanners`, 'scanners'],
      [`/admin/v1/events/${s.eid}/scans`, 'scans'],
    ] as const;

  it('every list pages with limit and next_cursor, says has_more, and sees each item once', async () => {
    for (const [url, name] of lists()) {
      // The scan log pages like the changes feed: a cursor on every page, the last one included.
      const feedLike = name === 'scans';
      const everything = await adminCall<Page>(t.app, 'GET', `${url}?limit=1000`);
      const all = everything[name] as unknown[];
      assert.ok(all.length >= 3, `${name}: enough items to page`);
      assert.equal(everything.has_more, false);
      assert.equal(everything.next_cursor === null, !feedLike);
      const seen: unknown[] = [];
      let cursor: string | null = null;
      let more = true;
      while (more) {
        const page: Page = await adminCall<Page>(t.app, 'GET', `${url}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        const items = page[name] as unknown[];
        assert.ok(items.length <= 2, `${name}: limit is honoured`);
        if (feedLike) assert.equal(typeof page.next_cursor, 'string', `${name}: a cursor on every page`);
        else assert.equal(page.has_more, page.next_cursor !== null, `${name}: has_more says whether a page follows`);
        seen.push(...items);
        cursor = page.next_cursor;
        more = page.has_more;
      }
      assert.deepEqual(seen, all, `${name}: following next_cursor gives every item once, in order`);
    }
  });

  it('a cursor the list did not give is 400 INVALID_REQUEST naming cursor, on every list', async () => {
    const lists2 = [...lists(), [`/admin/v1/events/${s.eid}/conflicts`, 'conflicts'] as const];
    for (const [url] of lists2) {
      for (const cursor of ['garbage', '0', 'evt_x', `sck_${'Z'.repeat(27)}`, '-1']) {
        const res = await t.app.inject({
          url: `${url}?cursor=${encodeURIComponent(cursor)}`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        if (url.endsWith('/scans') || url.endsWith('/conflicts')) {
          if (cursor === '0') continue; // a scan number: a real cursor of those lists
        }
        assert.equal(res.statusCode, 400, `${url} cursor=${cursor}`);
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
        assert.equal(res.json().error.details.fields[0].field, 'cursor');
      }
    }
  });
});
