import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  T0,
  testIssuer,
  type Scenario,
  type TestIssuer,
} from '../helpers/app.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const pg = await postgresAvailability('exits on PostgreSQL');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

const postCheckOut = (t: TestIssuer, apiKey: string, body: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-out',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: body as object,
  });

const occupancy = (t: TestIssuer, eid: string) =>
  adminCall<{
    inside: number;
    capacity: number | null;
    entries: number;
    exits: number;
    gates: { gate_id: string | null; name: string | null; entries: number; exits: number }[];
  }>(t.app, 'GET', `/admin/v1/events/${eid}/occupancy`);

const statusOf = async (t: TestIssuer, s: Scenario, tid = s.tid) =>
  (
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/tickets/${tid}/status`,
      headers: { authorization: `Bearer ${s.apiKey}` },
    })
  ).json() as { status: string; inside: boolean };

function exitSuite(
  name: string,
  skip: string | undefined,
  openStore: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`exits and occupancy through the API (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      if (skip !== undefined) return;
      const opened = await openStore();
      drop = opened.drop;
      t = await testIssuer({ store: opened.store });
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    it('an entry then an exit: inside, then out; the feed and the occupancy say so', async () => {
      const s = await scenario(t.app);
      await t.app.inject({
        method: 'PUT',
        url: `/admin/v1/events/${s.eid}/gates/north`,
        headers: admin,
        payload: { name: 'North', admits: null },
      });
      assert.equal(
        (await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { gate_id: 'north' }))).json().status,
        'valid',
      );
      assert.equal((await statusOf(t, s)).inside, true);
      assert.deepEqual([(await occupancy(t, s.eid)).inside, (await occupancy(t, s.eid)).entries], [1, 1]);

      const out = await postCheckOut(t, s.apiKey, checkInBody(s, T0, { gate_id: 'south' }));
      assert.equal(out.statusCode, 200);
      assert.equal(out.json().status, 'checked_out');
      assert.equal(out.json().ticket.checked_out_at, '2026-06-01T12:00:00Z');
      assert.equal(out.json().ticket.holder_name, 'Ada Lovelace');
      assert.equal((await statusOf(t, s)).inside, false);
      const counted = await occupancy(t, s.eid);
      assert.deepEqual([counted.inside, counted.entries, counted.exits], [0, 1, 1]);
      assert.deepEqual(counted.gates, [
        { gate_id: 'north', name: 'North', entries: 1, exits: 0 },
        { gate_id: 'south', name: null, entries: 0, exits: 1 },
      ]);

      const feed = await t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${s.eid}/changes`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      assert.deepEqual(
        feed.json().changes.map((c: { type: string; gate_id: string }) => [c.type, c.gate_id]),
        [
          ['checked_in', 'north'],
          ['checked_out', 'south'],
        ],
      );

      // Out again: not inside. Without re-entry, the next entry is already_used (the spec's behaviour).
      assert.equal((await postCheckOut(t, s.apiKey, checkInBody(s, T0))).json().status, 'not_inside');
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0))).json().status, 'already_used');
      assert.equal((await occupancy(t, s.eid)).inside, 0);
    });

    it('an exit of a ticket that never came in is not_inside, and changes nothing', async () => {
      const s = await scenario(t.app);
      const out = await postCheckOut(t, s.apiKey, checkInBody(s, T0));
      assert.equal(out.json().status, 'not_inside');
      assert.equal(out.json().ticket.checked_in_at, null);
      assert.deepEqual([(await occupancy(t, s.eid)).inside, (await occupancy(t, s.eid)).exits], [0, 0]);
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0))).json().status, 'valid');
    });

    it('is idempotent as a check-in, in the same key space', async () => {
      const s = await scenario(t.app);
      await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
      const body = checkInBody(s, T0);
      const first = await postCheckOut(t, s.apiKey, body);
      const again = await postCheckOut(t, s.apiKey, body);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const crossed = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(crossed.statusCode, 409);
      assert.equal(crossed.json().error.code, 'IDEMPOTENCY_CONFLICT');
      const entryKey = checkInBody(s, T0);
      await postCheckIn(t.app, s.apiKey, entryKey);
      assert.equal((await postCheckOut(t, s.apiKey, entryKey)).statusCode, 409);
      assert.equal((await occupancy(t, s.eid)).exits, 1, 'one exit, however often it was sent');
    });

    it('a revoked ticket answers revoked, and a holder inside is still counted out', async () => {
      const s = await scenario(t.app);
      await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
      await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'fraud' });
      const out = await postCheckOut(t, s.apiKey, checkInBody(s, T0));
      assert.equal(out.json().status, 'revoked');
      assert.deepEqual([(await occupancy(t, s.eid)).inside, (await occupancy(t, s.eid)).exits], [0, 1]);
      assert.equal((await postCheckOut(t, s.apiKey, checkInBody(s, T0))).json().status, 'revoked');
      assert.equal((await occupancy(t, s.eid)).exits, 1);
    });

    it('answers like check-in for what is not this event’s ticket, and is logged', async () => {
      const s = await scenario(t.app);
      const other = await scenario(t.app);
      const wrong = await postCheckOut(t, s.apiKey, { ...checkInBody(s, T0), tid: other.tid });
      assert.deepEqual(wrong.json(), { status: 'wrong_event', ticket: { tid: other.tid, eid: other.eid } });
      const unknown = await postCheckOut(t, s.apiKey, { ...checkInBody(s, T0), tid: '01JNOSUCHTICKET0000000000000' });
      assert.equal(unknown.statusCode, 404);
      const forged = await postCheckOut(t, s.apiKey, { ...checkInBody(s, T0), ticket_token: 'a.b.c' });
      assert.equal(forged.statusCode, 400);
      const { scans } = await adminCall<{ scans: { outcome: string }[] }>(
        t.app,
        'GET',
        `/admin/v1/events/${s.eid}/scans`,
      );
      assert.deepEqual(
        scans.map((scan) => scan.outcome),
        ['wrong_event', 'not_found', 'invalid_signature'],
      );
    });

    it('with re-entry, a holder who went out comes in again; while inside the ticket is used', async () => {
      const s = await scenario(t.app);
      const patch = (reentry: boolean) =>
        t.app.inject({ method: 'PATCH', url: `/admin/v1/events/${s.eid}`, headers: admin, payload: { reentry } });
      assert.equal((await patch(true)).statusCode, 200);
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T11:00:00Z'))).json().status, 'valid');
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0))).json().status, 'already_used');
      assert.equal(
        (await postCheckOut(t, s.apiKey, checkInBody(s, '2026-06-01T11:30:00Z'))).json().status,
        'checked_out',
      );
      const again = await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T11:45:00Z'));
      assert.equal(again.json().status, 'valid');
      assert.equal(again.json().ticket.checked_in_at, '2026-06-01T11:45:00Z', 'checked_in_at is this entry');
      assert.equal((await statusOf(t, s)).inside, true);
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0))).json().status, 'already_used');
      const reading = await occupancy(t, s.eid);
      assert.deepEqual([reading.inside, reading.entries, reading.exits], [1, 2, 1]);

      // Re-entry turned off: out again, and the next entry is already_used, as the spec has it.
      assert.equal((await patch(false)).statusCode, 200);
      assert.equal((await postCheckOut(t, s.apiKey, checkInBody(s, T0))).json().status, 'checked_out');
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0))).json().status, 'already_used');
      assert.equal((await occupancy(t, s.eid)).inside, 0);
    });

    it('the discovery document names the check-out endpoint; occupancy of an unknown event is 404', async () => {
      const discovery = await t.app.inject({ method: 'GET', url: '/.well-known/ticket-issuer.json' });
      assert.equal(discovery.json().endpoints.check_out, 'https://issuer.test/api/v1/tickets/check-out');
      const missing = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/events/evt_01NOSUCHEVENT0000000000000/occupancy',
        headers: admin,
      });
      assert.equal(missing.statusCode, 404);
      const s = await scenario(t.app);
      await t.app.inject({
        method: 'PATCH',
        url: `/admin/v1/events/${s.eid}`,
        headers: admin,
        payload: { capacity: 800 },
      });
      const reading = await occupancy(t, s.eid);
      assert.deepEqual([reading.inside, reading.capacity, reading.gates], [0, 800, []]);
    });
  });
}

exitSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
exitSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});

describe('occupancy stays exact under concurrent entries and exits on two instances (PostgreSQL)', () => {
  const it = itUnless(pg.skip);
  const clock = new FixedClock(T0);
  const issuers = twoIssuersOnOneDatabase(pg, clock);

  it('1,000 concurrent entries and exits of 200 tickets: inside = entries − exits = holders inside', async () => {
    const { a, b } = issuers();
    const s = await scenario(a.app);
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      a.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      {
        tickets: Array.from({ length: 199 }, (_, i) => ({ holder_name: `Holder ${i}`, ticket_type: 'GA' })),
      },
    );
    const tids = [s.tid, ...tickets.map((ticket) => ticket.tid)];
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => {
        const tid = tids[i % tids.length]!;
        const instance = i % 2 === 0 ? a : b;
        const body = {
          ...checkInBody(s, T0),
          tid,
          gate_id: i % 3 === 0 ? 'east' : 'west',
          idempotency_key: randomUUID(),
        };
        // Each ticket gets entries and exits interleaved: entries on even rounds, exits on odd ones.
        const exit = Math.floor(i / tids.length) % 2 === 1;
        return (exit ? postCheckOut(instance, s.apiKey, body) : postCheckIn(instance.app, s.apiKey, body)).then(
          (res) => [exit, res.json().status] as const,
        );
      }),
    );
    const entered = answers.filter(([exit, status]) => !exit && status === 'valid').length;
    const left = answers.filter(([exit, status]) => exit && status === 'checked_out').length;
    const reading = await occupancy(a, s.eid);
    assert.equal(reading.entries, entered);
    assert.equal(reading.exits, left);
    assert.equal(reading.inside, entered - left);
    let inside = 0;
    for (const tid of tids) if ((await statusOf(b, s, tid)).inside) inside += 1;
    assert.equal(reading.inside, inside, 'the count is the holders inside, ticket by ticket');
    assert.ok(entered > 0 && entered <= tids.length, 'each ticket came in at most once (no re-entry)');
  });
});
