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
          first: {
            scanner_id: north.scannerId,
            scanner_name: 'Gate A iPad',
            gate_id: 'north',
            scanned_at: at(-10),
            received_at: at(0),
          },
          duplicates: [
            {
              scanner_id: south.scannerId,
              scanner_name: 'Gate A iPad',
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

  it('admitted_offline is part of the same body: absent, true and false under one idempotency key are 409', async () => {
    const body = checkInBody(north, at(0));
    assert.equal((await postCheckIn(t.app, north.apiKey, body)).statusCode, 200);
    const replay = await postCheckIn(t.app, north.apiKey, body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    for (const admitted of [false, true]) {
      const changed = await postCheckIn(t.app, north.apiKey, { ...body, admitted_offline: admitted });
      assert.equal(changed.statusCode, 409, `admitted_offline ${admitted} is another body than none`);
      assert.equal(changed.json().error.code, 'IDEMPOTENCY_CONFLICT');
    }
  });

  it('a scan turned away offline never checks a ticket in: 409 CONFLICT turned_away_offline, logged, the ticket stays valid', async () => {
    const body = checkInBody(north, at(-5), { admitted_offline: false });
    const refused = await postCheckIn(t.app, north.apiKey, body);
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json().error.code, 'CONFLICT');
    assert.deepEqual(refused.json().error.details, { reason: 'turned_away_offline' });
    const replay = await postCheckIn(t.app, north.apiKey, body);
    assert.equal(replay.statusCode, 409, 'its replay gets the same answer');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const { scans } = await adminCall<{ scans: { outcome: string; admitted_offline: boolean; replay: boolean }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${north.eid}/scans`,
    );
    assert.deepEqual(
      scans.map((x) => [x.outcome, x.replay, x.admitted_offline]),
      [
        ['turned_away_offline', false, false],
        ['turned_away_offline', true, false],
      ],
    );
    const status = await t.app.inject({
      url: `/api/v1/tickets/${north.tid}/status`,
      headers: { authorization: `Bearer ${north.apiKey}` },
    });
    assert.equal(status.json().status, 'valid');
    assert.equal(status.json().checked_in_at, null);
    const later = await postCheckIn(t.app, south.apiKey, checkInBody(south, at(0)));
    assert.equal(later.json().status, 'valid', 'the holder gets in at the next gate');
    assert.equal((await counters()).counters.checked_in, 1);
  });

  it('any other decision on a scan turned away offline is answered as usual (already_used, revoked)', async () => {
    await postCheckIn(t.app, south.apiKey, checkInBody(south, at(-6)));
    const used = await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-5), { admitted_offline: false }));
    assert.equal(used.statusCode, 200);
    assert.equal(used.json().status, 'already_used');
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${north.eid}/tickets`,
      { tickets: [{ holder_name: 'Grace Hopper', ticket_type: 'GA' }] },
    );
    const tid = tickets[0]!.tid;
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {});
    const revoked = await postCheckIn(
      t.app,
      north.apiKey,
      checkInBody({ ...north, tid }, at(-4), { admitted_offline: false }),
    );
    assert.equal(revoked.json().status, 'revoked');
  });

  it('an already_used scan turned away offline is never a conflict, even scanned before the check-in was received', async () => {
    await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-5)));
    t.clock.set(at(3));
    const dup = await postCheckIn(t.app, south.apiKey, checkInBody(south, at(-1), { admitted_offline: false }));
    assert.equal(dup.json().status, 'already_used');
    assert.deepEqual((await conflicts()).conflicts, []);
    assert.equal((await counters()).counters.conflicts, 0);
  });

  it("a scanner's own repeat of a ticket it checked in is never a conflict", async () => {
    await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-5)));
    t.clock.set(at(3));
    const again = await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-4)));
    assert.equal(again.json().status, 'already_used');
    const admitted = await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-3), { admitted_offline: true }));
    assert.equal(admitted.json().status, 'already_used');
    assert.deepEqual((await conflicts()).conflicts, []);
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
