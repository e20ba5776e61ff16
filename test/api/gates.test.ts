import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  enrollScanner,
  postCheckIn,
  scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const pg = await postgresAvailability('gates on PostgreSQL');

/** The same suite on each backend: declared gates, the refusal of a type, event settings. */
function gateSuite(
  name: string,
  skip: string | undefined,
  openStore: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`gates and event settings through the API (${name})`, () => {
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

    const put = (eid: string, gateId: string, payload: unknown) =>
      t.app.inject({
        method: 'PUT',
        url: `/admin/v1/events/${eid}/gates/${gateId}`,
        headers: admin,
        payload: payload as object,
      });

    it('declares, lists, replaces and removes gates', async () => {
      const s = await scenario(t.app);
      const vip = await put(s.eid, 'vip', { name: 'VIP entrance', admits: ['VIP'] });
      assert.equal(vip.statusCode, 200);
      assert.deepEqual(vip.json(), { gate_id: 'vip', name: 'VIP entrance', admits: ['VIP'] });
      assert.equal((await put(s.eid, 'main', { name: 'Main', admits: null })).statusCode, 200);
      const listed = await adminCall<{ gates: unknown[] }>(t.app, 'GET', `/admin/v1/events/${s.eid}/gates`);
      assert.deepEqual(listed.gates, [
        { gate_id: 'main', name: 'Main', admits: null },
        { gate_id: 'vip', name: 'VIP entrance', admits: ['VIP'] },
      ]);
      assert.equal((await put(s.eid, 'vip', { name: 'VIP and crew', admits: ['VIP', 'Crew'] })).statusCode, 200);
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/events/${s.eid}/gates/vip`,
        headers: admin,
      });
      assert.equal(removed.statusCode, 204);
      const again = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/events/${s.eid}/gates/vip`,
        headers: admin,
      });
      assert.equal(again.statusCode, 404);
      assert.equal((await put('evt_01NOSUCHEVENT0000000000000', 'x', { name: 'X', admits: null })).statusCode, 404);
    });

    it('refuses a malformed gate in the envelope', async () => {
      const s = await scenario(t.app);
      for (const payload of [
        { name: '', admits: null },
        { name: 'A' },
        { name: 'A', admits: [] },
        { name: 'A', admits: ['VIP', 'VIP'] },
        { name: 'A', admits: 'VIP' },
        { name: 'A', admits: null, extra: 1 },
      ]) {
        const res = await put(s.eid, 'north', payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
      }
      assert.equal((await put(s.eid, 'has space', { name: 'A', admits: null })).statusCode, 400);
    });

    it('a declared gate refuses a type it does not admit: 403 with the reason, logged, the ticket unused', async () => {
      const s = await scenario(t.app, { ticket: { ticket_type: 'GA' } });
      await put(s.eid, 'vip', { name: 'VIP entrance', admits: ['VIP'] });
      const refused = await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { gate_id: 'vip' }));
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json().error.details, {
        reason: 'ticket_type_not_admitted',
        gate_id: 'vip',
        ticket_type: 'GA',
        // The holder's name, so that staff can tell the guest where to go.
        holder_name: 'Ada Lovelace',
      });
      assert.equal(refused.json().error.code, 'FORBIDDEN');
      const status = await t.app.inject({
        method: 'GET',
        url: `/api/v1/tickets/${s.tid}/status`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      assert.equal(status.json().status, 'valid', 'the ticket stays unused');
      const { scans } = await adminCall<{ scans: { outcome: string; gate_id: string }[] }>(
        t.app,
        'GET',
        `/admin/v1/events/${s.eid}/scans`,
      );
      assert.deepEqual(
        scans.map((scan) => [scan.outcome, scan.gate_id]),
        [['ticket_type_not_admitted', 'vip']],
      );

      // The same ticket at a gate that admits every type, and at a gate that is not declared.
      await put(s.eid, 'main', { name: 'Main', admits: null });
      assert.equal(
        (await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { gate_id: 'main' }))).json().status,
        'valid',
      );
      const other = await scenario(t.app, { ticket: { ticket_type: 'GA' } });
      const undeclared = await postCheckIn(t.app, other.apiKey, checkInBody(other, T0, { gate_id: 'side-door' }));
      assert.equal(undeclared.json().status, 'valid', 'an undeclared gate_id is for audit only');
    });

    it('a replay of a refusal answers the same, even after the gate changed', async () => {
      const s = await scenario(t.app, { ticket: { ticket_type: 'GA' } });
      await put(s.eid, 'vip', { name: 'VIP', admits: ['VIP'] });
      const body = checkInBody(s, T0, { gate_id: 'vip' });
      assert.equal((await postCheckIn(t.app, s.apiKey, body)).statusCode, 403);
      await put(s.eid, 'vip', { name: 'VIP', admits: ['VIP', 'GA'] });
      const replay = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(replay.statusCode, 403);
      assert.equal(replay.json().error.details.reason, 'ticket_type_not_admitted');
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { gate_id: 'vip' }))).json().status, 'valid');
    });

    it('a gate-scoped key at a declared gate applies its rule without naming the gate', async () => {
      const s = await scenario(t.app, { ticket: { ticket_type: 'GA' } });
      await put(s.eid, 'backstage', { name: 'Backstage', admits: ['Crew'] });
      const scannerId = randomUUID();
      const keyed = await enrollScanner(t.app, s.eid, scannerId, 'backstage');
      const res = await postCheckIn(t.app, keyed.apiKey, { ...checkInBody(s, T0), scanner_id: scannerId });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error.details.gate_id, 'backstage');
    });

    it('event settings: reentry and capacity, checked, and carried by the event', async () => {
      const s = await scenario(t.app);
      const patch = (payload: unknown) =>
        t.app.inject({ method: 'PATCH', url: `/admin/v1/events/${s.eid}`, headers: admin, payload: payload as object });
      const initial = await adminCall<{ reentry: boolean; capacity: number | null }>(
        t.app,
        'GET',
        `/admin/v1/events/${s.eid}`,
      );
      assert.deepEqual([initial.reentry, initial.capacity], [false, null]);
      const changed = await patch({ reentry: true, capacity: 2500 });
      assert.equal(changed.statusCode, 200);
      assert.deepEqual([changed.json().reentry, changed.json().capacity], [true, 2500]);
      assert.deepEqual(
        [(await patch({ capacity: null })).json().reentry, (await patch({})).json().capacity],
        [true, null],
      );
      for (const bad of [
        { reentry: 'yes' },
        { capacity: 0 },
        { capacity: -3 },
        { capacity: 1.5 },
        { capacity: '10' },
        { other: 1 },
      ]) {
        const res = await patch(bad);
        assert.equal(res.statusCode, 400, JSON.stringify(bad));
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
      }
      const missing = await t.app.inject({
        method: 'PATCH',
        url: '/admin/v1/events/evt_01NOSUCHEVENT0000000000000',
        headers: admin,
        payload: {},
      });
      assert.equal(missing.statusCode, 404);
    });

    it('a scanner reads its event’s gates and re-entry setting; another event’s key is refused', async () => {
      const s = await scenario(t.app);
      await put(s.eid, 'vip', { name: 'VIP', admits: ['VIP'] });
      await t.app.inject({
        method: 'PATCH',
        url: `/admin/v1/events/${s.eid}`,
        headers: admin,
        payload: { reentry: true },
      });
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${s.eid}/gates`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { gates: [{ gate_id: 'vip', name: 'VIP', admits: ['VIP'] }], reentry: true });
      const other = await scenario(t.app);
      const refused = await t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${s.eid}/gates`,
        headers: { authorization: `Bearer ${other.apiKey}` },
      });
      assert.equal(refused.statusCode, 403);
      const anonymous = await t.app.inject({ method: 'GET', url: `/api/v1/events/${s.eid}/gates` });
      assert.equal(anonymous.statusCode, 401);
    });
  });
}

gateSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
gateSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});
