import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
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
import { eachBackend } from '../helpers/backends.ts';

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
              reason: null,
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
      [['turned_away_offline', false, false]],
      'its replay writes no second line',
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

await eachBackend('the conflicts report of a ticket that re-entered', ({ it, issuer }) => {
  const app = () => issuer().app;
  interface Gate {
    s: Scenario;
    exit: (minutes: number) => Promise<string>;
    entry: (minutes: number, extra?: Record<string, unknown>) => Promise<string>;
  }

  /** An event with re-entry, one ticket, and a scanner at each of two gates (north also scans exits). */
  async function reentryEvent(): Promise<{ north: Gate; south: Gate; eid: string; tid: string }> {
    issuer().clock.set(T0);
    const north = await scenario(app(), { gateId: 'north' });
    await app().inject({
      method: 'PATCH',
      url: `/admin/v1/events/${north.eid}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { reentry: true },
    });
    const scannerId = randomUUID();
    const south = { ...north, scannerId, ...(await enrollScanner(app(), north.eid, scannerId, 'south')) };
    const gate = (s: Scenario): Gate => ({
      s,
      entry: async (minutes, extra = {}) =>
        (await postCheckIn(app(), s.apiKey, checkInBody(s, at(minutes), extra))).json().status as string,
      exit: async (minutes) => {
        const res = await app().inject({
          method: 'POST',
          url: '/api/v1/tickets/check-out',
          headers: { authorization: `Bearer ${s.apiKey}` },
          payload: checkInBody(s, at(minutes)),
        });
        return res.json().status as string;
      },
    });
    return { north: gate(north), south: gate(south), eid: north.eid, tid: north.tid };
  }

  const report = (eid: string, query = '') =>
    adminCall<ConflictsPage>(app(), 'GET', `/admin/v1/events/${eid}/conflicts${query}`);
  const counter = async (eid: string) =>
    (await adminCall<{ counters: { conflicts: number } }>(app(), 'GET', `/admin/v1/events/${eid}`)).counters.conflicts;
  const scan = (scanner: string, minutes: number, received: number) => ({
    scanner_id: scanner,
    scanner_name: 'Gate A iPad',
    gate_id: scanner === 'north' ? 'north' : 'south',
    scanned_at: at(minutes),
    received_at: at(received),
  });

  it('entered, went out, came in twice more, then let in twice offline at another gate: one card, each duplicate once', async () => {
    const { north, south, eid, tid } = await reentryEvent();
    const clock = issuer().clock;
    for (const [minutes, move] of [
      [0, north.entry],
      [10, north.exit],
      [20, north.entry],
      [30, north.exit],
      [40, north.entry],
    ] as const) {
      clock.set(at(minutes));
      assert.match(await move(minutes), /^(valid|checked_out)$/);
    }
    // South was offline from minute 44 and let the holder in twice; it syncs at minute 50.
    clock.set(at(50));
    assert.equal(await south.entry(45, { admitted_offline: true }), 'already_used');
    assert.equal(await south.entry(46, { admitted_offline: true }), 'already_used');
    const page = await report(eid);
    const names = (c: Record<string, unknown>) => ({
      ...c,
      scanner_id: c.scanner_id === north.s.scannerId ? 'north' : 'south',
    });
    assert.deepEqual(
      page.conflicts.map((c) => ({ ...c, first: names(c.first), duplicates: c.duplicates.map(names) })),
      [
        {
          tid,
          holder_name: 'Ada Lovelace',
          first: scan('north', 40, 40),
          duplicates: [
            { ...scan('south', 45, 50), admitted_offline: true, reason: null },
            { ...scan('south', 46, 50), admitted_offline: true, reason: null },
          ],
        },
      ],
      'the entry the holder was inside on, and each duplicate once',
    );
    assert.equal(page.has_more, false);
    assert.equal(await counter(eid), 1, 'the counter counts the ticket once');
  });

  it('double entries on two visits of one ticket: still one card, first the entry of its earliest duplicate', async () => {
    const { north, south, eid } = await reentryEvent();
    const clock = issuer().clock;
    assert.equal(await north.entry(0), 'valid');
    clock.set(at(6));
    assert.equal(await south.entry(5, { admitted_offline: true }), 'already_used');
    clock.set(at(10));
    assert.equal(await north.exit(10), 'checked_out');
    clock.set(at(20));
    assert.equal(await north.entry(20), 'valid');
    clock.set(at(30));
    assert.equal(await south.entry(25, { admitted_offline: true }), 'already_used');
    // A double scan by the entry's own scanner is a device that knew: never a conflict.
    assert.equal(await north.entry(26, { admitted_offline: true }), 'already_used');
    const { conflicts } = await report(eid);
    assert.equal(conflicts.length, 1);
    assert.deepEqual(conflicts[0]!.first.scanned_at, at(0));
    assert.deepEqual(
      conflicts[0]!.duplicates.map((d) => [d.scanner_id === south.s.scannerId, d.scanned_at]),
      [
        [true, at(5)],
        [true, at(25)],
      ],
    );
    assert.equal(await counter(eid), 1);
  });

  it('pages one card per ticket: the cursor never repeats a re-entered ticket on the next page', async () => {
    const { north, south, eid } = await reentryEvent();
    const clock = issuer().clock;
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      app(),
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      {
        tickets: [{ holder_name: 'Grace Hopper', ticket_type: 'GA' }],
      },
    );
    const grace = (g: Gate): Gate => {
      const s = { ...g.s, tid: tickets[0]!.tid };
      return {
        s,
        entry: async (minutes, extra = {}) =>
          (await postCheckIn(app(), s.apiKey, checkInBody(s, at(minutes), extra))).json().status as string,
        exit: g.exit,
      };
    };
    for (const [minutes, move] of [
      [0, north.entry],
      [1, grace(north).entry],
      [10, north.exit],
      [20, north.entry],
    ] as const) {
      clock.set(at(minutes));
      await move(minutes);
    }
    clock.set(at(30));
    await south.entry(25, { admitted_offline: true });
    await grace(south).entry(26, { admitted_offline: true });
    const first = await report(eid, '?limit=1');
    assert.equal(first.conflicts.length, 1);
    assert.equal(first.has_more, true);
    const second = await report(eid, `?limit=1&cursor=${first.next_cursor}`);
    assert.equal(second.has_more, false);
    assert.deepEqual(
      [...first.conflicts, ...second.conflicts].map((c) => c.holder_name),
      ['Grace Hopper', 'Ada Lovelace'],
      "in the order of the entries the duplicates collided with (Grace's at minute 1, Ada's re-entry at 20)",
    );
    assert.equal(await counter(eid), 2);
  });
});
