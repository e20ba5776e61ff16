import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner, postCheckIn, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const pg = await postgresAvailability('annul on PostgreSQL');

type Json = Record<string, unknown> & { error?: { code: string; details: Record<string, unknown> } };

/** An event, two scanners and helpers to scan, go out and annul, on one issuer. */
async function gate(t: TestIssuer, clock: FixedClock, settings: Record<string, unknown> = {}) {
  const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
    name: 'Undo Night',
    event_date: '2026-06-05T16:00:00Z',
    ...settings,
  });
  const scanner = async () => {
    const scannerId = randomUUID();
    return { scannerId, ...(await enrollScanner(t.app, eid, scannerId)) };
  };
  const [a, b] = [await scanner(), await scanner()];
  const ticket = async (type = 'GA') =>
    (
      await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Ada Lovelace',
        ticket_type: type,
      })
    ).tid;
  const body = (s: typeof a, tid: string, key = randomUUID()) => ({
    tid,
    eid,
    scanned_at: clock.now().toISOString(),
    scanner_id: s.scannerId,
    idempotency_key: key,
  });
  const enter = async (s: typeof a, tid: string, key = randomUUID()) => {
    const res = await postCheckIn(t.app, s.apiKey, body(s, tid, key));
    return { key, status: res.statusCode, body: res.json() as Json };
  };
  const exit = async (s: typeof a, tid: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-out',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: body(s, tid),
    });
  const annul = async (s: typeof a, key: string, annulledAt = clock.now().toISOString()) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in/annul',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: { eid, scanner_id: s.scannerId, idempotency_key: key, annulled_at: annulledAt },
    });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const status = async (tid: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/tickets/${tid}/status`,
        headers: { authorization: `Bearer ${a.apiKey}` },
      })
    ).json() as Json;
  const occupancy = () =>
    adminCall<{ inside: number; gates: { entries: number }[] }>(t.app, 'GET', `/admin/v1/events/${eid}/occupancy`);
  const counters = async () =>
    (await adminCall<{ counters: { checked_in: number } }>(t.app, 'GET', `/admin/v1/events/${eid}`)).counters;
  const feed = async () =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${eid}/changes`,
        headers: { authorization: `Bearer ${a.apiKey}` },
      })
    ).json().changes as Json[];
  const log = async () => (await adminCall<{ scans: Json[] }>(t.app, 'GET', `/admin/v1/events/${eid}/scans`)).scans;
  return { eid, a, b, ticket, enter, exit, annul, status, occupancy, counters, feed, log };
}

function annulSuite(
  name: string,
  skip: string | undefined,
  open: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`annul through the API (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    let clock: FixedClock;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      if (skip !== undefined) return;
      const opened = await open();
      drop = opened.drop;
      clock = new FixedClock(T0);
      t = await testIssuer({ store: opened.store, clock, env: { ANNUL_WINDOW_S: '300' } });
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    it('a first entry undone: the ticket is unused again everywhere, and the same annul answers again', async () => {
      clock.set(T0);
      const g = await gate(t, clock);
      const tid = await g.ticket();
      const entry = await g.enter(g.a, tid);
      assert.equal(entry.body.status, 'valid');
      clock.advance(10_000);
      const undone = await g.annul(g.a, entry.key);
      assert.equal(undone.status, 200, JSON.stringify(undone.body));
      assert.equal(undone.body.status, 'annulled');
      assert.deepEqual(
        { ...(undone.body.ticket as Json), tid: undefined, eid: undefined },
        {
          tid: undefined,
          eid: undefined,
          holder_name: 'Ada Lovelace',
          ticket_type: 'GA',
          checked_in_at: null,
          entries: 0,
          attention: false,
          checkin_texts: [],
        },
      );
      const status = await g.status(tid);
      assert.equal(status.status, 'valid');
      assert.equal(status.inside, false);
      assert.equal(status.entries, 0);
      assert.equal((await g.occupancy()).inside, 0);
      assert.equal(
        (await g.occupancy()).gates.reduce((n, x) => n + x.entries, 0),
        0,
      );
      assert.equal((await g.counters()).checked_in, 0);
      const annulled = (await g.feed()).filter((c) => c.type === 'annulled');
      assert.deepEqual(annulled, [
        { type: 'annulled', tid, idempotency_key: entry.key, scanner_id: g.a.scannerId, at: '2026-06-01T12:00:10Z' },
      ]);
      const line = (await g.log()).find((s) => s.idempotency_key === entry.key)!;
      assert.equal(line.outcome, 'valid');
      assert.equal(line.annulled_at, '2026-06-01T12:00:10Z');
      const again = await g.annul(g.a, entry.key);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, undone.body);
      assert.equal((await g.feed()).filter((c) => c.type === 'annulled').length, 1, 'once in the feed');
      // The ticket can be used again.
      assert.equal((await g.enter(g.b, tid)).body.status, 'valid');
    });

    it('only this scanner’s key: another scanner’s, or a key never used, is 404', async () => {
      clock.set(T0);
      const g = await gate(t, clock);
      const entry = await g.enter(g.a, await g.ticket());
      const other = await g.annul(g.b, entry.key);
      assert.equal(other.status, 404);
      assert.equal(other.body.error?.code, 'NOT_FOUND');
      assert.equal((await g.annul(g.a, randomUUID())).status, 404);
    });

    it('refusals: after the window, not an entry, not the latest move', async () => {
      clock.set(T0);
      const g = await gate(t, clock, {});
      await adminCall(t.app, 'PATCH', `/admin/v1/events/${g.eid}`, { reentry: true });
      const tid = await g.ticket();
      const entry = await g.enter(g.a, tid);
      clock.advance(301_000);
      const late = await g.annul(g.a, entry.key);
      assert.equal(late.status, 409);
      assert.equal(late.body.error?.details.reason, 'window_passed');
      clock.set(T0);
      const double = await g.enter(g.a, tid);
      assert.equal(double.body.status, 'already_used');
      assert.equal((await g.annul(g.a, double.key)).body.error?.details.reason, 'not_an_entry');
      clock.advance(5_000);
      assert.equal((await g.exit(g.a, tid)).json().status, 'checked_out');
      assert.equal((await g.annul(g.a, entry.key)).body.error?.details.reason, 'not_latest');
      assert.equal((await g.status(tid)).status, 'checked_in', 'nothing changed');
    });

    it('a re-entry undone: the holder is out again, the first entry kept', async () => {
      clock.set(T0);
      const g = await gate(t, clock);
      await adminCall(t.app, 'PATCH', `/admin/v1/events/${g.eid}`, { reentry: true });
      const tid = await g.ticket();
      await g.enter(g.a, tid);
      clock.advance(60_000);
      await g.exit(g.a, tid);
      clock.advance(60_000);
      const again = await g.enter(g.a, tid);
      assert.equal(again.body.status, 'valid');
      const undone = await g.annul(g.a, again.key);
      assert.equal(undone.status, 200);
      const status = await g.status(tid);
      assert.equal(status.inside, false);
      assert.equal(status.checked_in_at, '2026-06-01T12:00:00Z');
      assert.equal(status.checked_out_at, '2026-06-01T12:01:00Z');
      assert.equal(status.entries, 1);
      assert.equal((await g.occupancy()).inside, 0);
      assert.equal((await g.counters()).checked_in, 1);
    });

    it('a wristband’s entry while inside undone: still inside, one entry fewer, occupancy unchanged', async () => {
      clock.set(T0);
      const g = await gate(t, clock);
      await adminCall(t.app, 'PUT', `/admin/v1/events/${g.eid}/ticket-types/Wristband`, { reentry: 'any' });
      const tid = await g.ticket('Wristband');
      await g.enter(g.a, tid);
      clock.advance(60_000);
      const second = await g.enter(g.a, tid);
      assert.equal(second.body.status, 'valid');
      assert.equal((await g.annul(g.a, second.key)).status, 200);
      const status = await g.status(tid);
      assert.equal(status.inside, true);
      assert.equal(status.entries, 1);
      const occupancy = await g.occupancy();
      assert.equal(occupancy.inside, 1);
      assert.equal(
        occupancy.gates.reduce((n, x) => n + x.entries, 0),
        1,
      );
    });

    it('an upload applies an annul after the entry it undoes, and an organizer annuls from the scan log', async () => {
      clock.set(T0);
      const g = await gate(t, clock);
      const [first, second] = [await g.ticket(), await g.ticket()];
      const key = randomUUID();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: { authorization: `Bearer ${g.a.apiKey}` },
        payload: {
          scans: [
            {
              action: 'check_in',
              tid: first,
              eid: g.eid,
              scanned_at: clock.now().toISOString(),
              scanner_id: g.a.scannerId,
              idempotency_key: key,
            },
            {
              action: 'annul',
              eid: g.eid,
              scanner_id: g.a.scannerId,
              idempotency_key: key,
              annulled_at: clock.now().toISOString(),
            },
          ],
        },
      });
      const results = res.json().results as { status_code: number; body: Json }[];
      assert.deepEqual(
        results.map((r) => [r.status_code, r.body.status]),
        [
          [200, 'valid'],
          [200, 'annulled'],
        ],
      );
      assert.equal((await g.status(first)).status, 'valid');
      // An organizer, two hours later: no window.
      const entry = await g.enter(g.a, second);
      clock.advance(2 * 3600_000);
      const scanId = (await g.log()).find((s) => s.idempotency_key === entry.key)!.scan_id;
      const byAdmin = await adminCall<Json>(
        t.app,
        'POST',
        `/admin/v1/events/${g.eid}/scans/${scanId}/annul`,
        {
          reason: 'turnstile did not turn',
        },
        200,
      );
      assert.equal(byAdmin.status, 'annulled');
      assert.equal((await g.status(second)).status, 'valid');
      const unknown = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${g.eid}/scans/999999999/annul`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: {},
      });
      assert.equal(unknown.statusCode, 404);
    });
  });
}

annulSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
annulSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});

describe('annul and scan of the same tickets on two PostgreSQL instances at once', () => {
  const it = itUnless(pg.skip);
  it('ends consistent: every ticket, occupancy and the counters agree', async () => {
    if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
    const database = await freshDatabase();
    const clock = new FixedClock(T0);
    const one = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    const two = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    try {
      const g = await gate(one, clock);
      const bOnTwo = { ...g.b };
      const tids = await Promise.all(Array.from({ length: 20 }, () => g.ticket()));
      const entries = await Promise.all(tids.map((tid) => g.enter(g.a, tid)));
      clock.advance(1000);
      const raced = await Promise.all(
        tids.map(async (tid, i) => {
          const [undone, scanned] = await Promise.all([
            g.annul(g.a, entries[i]!.key),
            postCheckIn(two.app, bOnTwo.apiKey, {
              tid,
              eid: g.eid,
              scanned_at: clock.now().toISOString(),
              scanner_id: bOnTwo.scannerId,
              idempotency_key: randomUUID(),
            }),
          ]);
          return { undone: undone.body.status, scanned: (scanned.json() as Json).status };
        }),
      );
      let inside = 0;
      for (const [i, r] of raced.entries()) {
        const status = await g.status(tids[i]!);
        // The annul comes first (the scan then admits) or second (the scan was a double scan).
        assert.equal(r.undone, 'annulled');
        assert.ok(r.scanned === 'valid' || r.scanned === 'already_used', String(r.scanned));
        const admitted = r.scanned === 'valid';
        assert.equal(status.inside, admitted);
        assert.equal(status.entries, admitted ? 1 : 0);
        if (admitted) inside += 1;
      }
      assert.equal((await g.occupancy()).inside, inside);
      assert.equal((await g.counters()).checked_in, inside);
    } finally {
      await one.close();
      await two.close();
      await database.drop();
    }
  });
});
