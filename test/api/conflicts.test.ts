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

const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString().replace('.000Z', 'Z');

interface ConflictsPage {
  conflicts: {
    tid: string;
    holder_name: string;
    first: Record<string, unknown>;
    duplicates: Record<string, unknown>[];
  }[];
  next_cursor: string | null;
  has_more: boolean;
}

describe('offline double entries: admitted_offline and GET /admin/v1/events/{eid}/conflicts', () => {
  let t: TestIssuer;
  let north: Scenario;
  let south: Scenario;

  before(async () => {
    t = await testIssuer();
  });
  beforeEach(async () => {
    t.clock.set(T0);
    north = await scenario(t.app, { gateId: 'north' });
    const scannerId = randomUUID();
    south = { ...north, scannerId, ...(await enrollScanner(t.app, north.eid, scannerId, 'south')) };
  });
  after(() => t.close());

  const conflicts = (query = '') =>
    adminCall<ConflictsPage>(t.app, 'GET', `/admin/v1/events/${north.eid}/conflicts${query}`);
  const counters = async () =>
    await adminCall<{ counters: Record<string, number> }>(t.app, 'GET', `/admin/v1/events/${north.eid}`);

  it('two gates admit one ticket offline and sync: one valid, one already_used, both scanners named', async () => {
    // Both gates were offline at minutes -10 and -9; north syncs first (now), south a minute later.
    const first = await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-10), { admitted_offline: true }));
    assert.equal(first.json().status, 'valid');
    t.clock.set(at(1));
    const second = await postCheckIn(t.app, south.apiKey, checkInBody(south, at(-9), { admitted_offline: true }));
    assert.equal(second.json().status, 'already_used');
    assert.deepEqual(await conflicts(), {
      conflicts: [
        {
          tid: north.tid,
          holder_name: 'Ada Lovelace',
          first: { scanner_id: north.scannerId, gate_id: 'north', scanned_at: at(-10), received_at: at(0) },
          duplicates: [
            {
              scanner_id: south.scannerId,
              gate_id: 'south',
              scanned_at: at(-9),
              received_at: at(1),
              admitted_offline: true,
            },
          ],
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    const event = await counters();
    assert.equal(event.counters.conflicts, 1);
  });

  it('a scan made before the valid check-in reached the issuer is a conflict even without admitted_offline', async () => {
    await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-5)));
    t.clock.set(at(3));
    await postCheckIn(t.app, south.apiKey, checkInBody(south, at(-1)));
    const page = await conflicts();
    assert.equal(page.conflicts.length, 1);
    assert.equal(page.conflicts[0]!.duplicates[0]!.admitted_offline, false);
  });

  it('an ordinary double scan at a gate after the valid one was recorded is not a conflict', async () => {
    await postCheckIn(t.app, north.apiKey, checkInBody(north, at(0)));
    t.clock.set(at(2));
    const again = await postCheckIn(t.app, south.apiKey, checkInBody(south, at(1)));
    assert.equal(again.json().status, 'already_used');
    assert.deepEqual((await conflicts()).conflicts, []);
    assert.equal((await counters()).counters.conflicts, 0);
  });

  it('admitted_offline is part of the same body: changing it under one idempotency key is 409', async () => {
    const body = checkInBody(north, at(0));
    assert.equal((await postCheckIn(t.app, north.apiKey, body)).statusCode, 200);
    const replay = await postCheckIn(t.app, north.apiKey, { ...body, admitted_offline: false });
    assert.equal(replay.statusCode, 200, 'absent and false are the same body');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const changed = await postCheckIn(t.app, north.apiKey, { ...body, admitted_offline: true });
    assert.equal(changed.statusCode, 409);
    assert.equal(changed.json().error.code, 'IDEMPOTENCY_CONFLICT');
  });

  it('admitted_offline must be a boolean, and the scan log keeps it', async () => {
    const bad = await postCheckIn(t.app, north.apiKey, checkInBody(north, at(0), { admitted_offline: 'yes' }));
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'INVALID_REQUEST');
    await postCheckIn(t.app, north.apiKey, checkInBody(north, at(0), { admitted_offline: true }));
    const { scans } = await adminCall<{ scans: { admitted_offline: boolean }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${north.eid}/scans`,
    );
    assert.deepEqual(
      scans.map((x) => x.admitted_offline),
      [true],
    );
  });

  it('pages with limit and cursor; a malformed cursor is 400; an unknown event is 404', async () => {
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${north.eid}/tickets`,
      { tickets: Array.from({ length: 3 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    );
    for (const ticket of tickets) {
      await postCheckIn(t.app, north.apiKey, checkInBody({ ...north, tid: ticket.tid }, at(-3)));
      await postCheckIn(
        t.app,
        south.apiKey,
        checkInBody({ ...south, tid: ticket.tid }, at(-2), { admitted_offline: true }),
      );
    }
    const first = await conflicts('?limit=2');
    assert.equal(first.conflicts.length, 2);
    assert.equal(first.has_more, true);
    const second = await conflicts(`?limit=2&cursor=${first.next_cursor}`);
    assert.deepEqual(
      [...first.conflicts, ...second.conflicts].map((c) => c.tid),
      tickets.map((x) => x.tid),
    );
    assert.equal(second.has_more, false);
    assert.equal(second.next_cursor, null);
    const bad = await t.app.inject({
      url: `/admin/v1/events/${north.eid}/conflicts?cursor=abc`,
      headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'INVALID_REQUEST');
    await adminCall(t.app, 'GET', '/admin/v1/events/evt_01JZZZZZZZZZZZZZZZZZZZZZZZ/conflicts', undefined, 404);
  });
});
