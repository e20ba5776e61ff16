import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  enrollScanner,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  type TestIssuer,
} from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

/**
 * Presence follows scan time: an exit answered `not_inside` because the issuer did not know yet of an
 * earlier offline entry is applied when that entry arrives; an exit scanned before the entry that has
 * the holder inside does not take them out; `checked_in_at` is never after `checked_out_at`.
 */
const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString().replace('.000Z', 'Z');
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Status {
  status: string;
  inside: boolean;
  checked_in_at: string | null;
  checked_out_at: string | null;
}

await eachBackend('presence follows scan time', ({ it, issuer }) => {
  /** An event (re-entry as asked), one ticket, an offline gate (north) and an online exit (south). */
  async function setting(reentry: boolean): Promise<{ t: TestIssuer; north: Scenario; south: Scenario }> {
    const t = issuer();
    const north = await scenario(t.app, { gateId: 'north' });
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/admin/v1/events/${north.eid}`,
      headers: admin,
      payload: { reentry },
    });
    assert.equal(res.statusCode, 200, res.body);
    const scannerId = randomUUID();
    const south = { ...north, scannerId, ...(await enrollScanner(t.app, north.eid, scannerId, 'south')) };
    return { t, north, south };
  }

  const exit = async (t: TestIssuer, s: Scenario, scannedAt: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-out',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: checkInBody(s, scannedAt),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { status: string; ticket: { checked_out_at: string | null } };
  };
  const entry = async (t: TestIssuer, s: Scenario, scannedAt: string, extra: Record<string, unknown> = {}) =>
    (await postCheckIn(t.app, s.apiKey, checkInBody(s, scannedAt, extra))).json() as { status: string };
  const status = async (t: TestIssuer, s: Scenario) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/tickets/${s.tid}/status`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      })
    ).json() as Status;
  const occupancy = (t: TestIssuer, s: Scenario) =>
    adminCall<{ inside: number; entries: number; exits: number; gates: { gate_id: string; exits: number }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${s.eid}/occupancy`,
    );
  const feed = async (t: TestIssuer, s: Scenario) =>
    (
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/events/${s.eid}/changes`,
          headers: { authorization: `Bearer ${s.apiKey}` },
        })
      ).json() as { changes: { type: string; at: string; scanner_id: string; gate_id: string | null }[] }
    ).changes.map((c) => [c.type, c.at, c.scanner_id, c.gate_id]);

  for (const reentry of [false, true]) {
    it(`an offline entry at T1 uploaded after an online exit at T2 > T1 answered not_inside: the holder ends out (reentry ${reentry})`, async () => {
      const { t, north, south } = await setting(reentry);
      // North let the holder in offline at -30; south saw them leave at -10, before north synced.
      assert.equal((await exit(t, south, at(-10))).status, 'not_inside');
      assert.equal((await entry(t, north, at(-30), { admitted_offline: true })).status, 'valid');

      assert.deepEqual(await status(t, north), {
        ...(await status(t, north)),
        status: 'checked_in',
        inside: false,
        checked_in_at: at(-30),
        checked_out_at: at(-10),
      });
      const reading = await occupancy(t, north);
      assert.deepEqual([reading.inside, reading.entries, reading.exits], [0, 1, 1]);
      assert.equal(reading.gates.find((g) => g.gate_id === 'south')?.exits, 1, 'counted at the exit’s own gate');
      assert.deepEqual(await feed(t, north), [
        ['checked_in', at(-30), north.scannerId, 'north'],
        ['checked_out', at(-10), south.scannerId, 'south'],
      ]);
      // Out, as the exit left them: another exit is not_inside and changes nothing.
      assert.equal((await exit(t, south, at(-5))).status, 'not_inside');
      assert.equal((await occupancy(t, north)).exits, 1);
    });
  }

  it('two exits answered not_inside: only the first after the entry takes the holder out, once', async () => {
    const { t, north, south } = await setting(false);
    assert.equal((await exit(t, south, at(-40))).status, 'not_inside'); // before the entry: another matter
    assert.equal((await exit(t, south, at(-10))).status, 'not_inside');
    assert.equal((await exit(t, south, at(-5))).status, 'not_inside');
    assert.equal((await entry(t, north, at(-30), { admitted_offline: true })).status, 'valid');
    const now = await status(t, north);
    assert.deepEqual([now.inside, now.checked_in_at, now.checked_out_at], [false, at(-30), at(-10)]);
    const reading = await occupancy(t, north);
    assert.deepEqual([reading.inside, reading.entries, reading.exits], [0, 1, 1]);
  });

  it('an exit scanned before the entry that has the holder inside is not_inside: they stay in', async () => {
    const { t, north, south } = await setting(false);
    assert.equal((await entry(t, north, at(-10))).status, 'valid');
    // South's offline exit at -20 arrives late: the holder came in at -10, after it.
    const late = await exit(t, south, at(-20));
    assert.deepEqual([late.status, late.ticket.checked_out_at], ['not_inside', null]);
    const now = await status(t, north);
    assert.deepEqual([now.inside, now.checked_in_at, now.checked_out_at], [true, at(-10), null]);
    assert.deepEqual(
      [(await occupancy(t, north)).inside, (await occupancy(t, north)).exits],
      [1, 0],
      'still counted inside',
    );
    // An exit after the entry still lets them out, and the status says when.
    assert.equal((await exit(t, south, at(-1))).status, 'checked_out');
    const out = await status(t, north);
    assert.deepEqual([out.inside, out.checked_in_at, out.checked_out_at], [false, at(-10), at(-1)]);
  });

  it('the status answer carries checked_out_at: null before the holder comes in and while inside', async () => {
    const { t, north, south } = await setting(true);
    assert.equal((await status(t, north)).checked_out_at, null);
    assert.equal((await entry(t, north, at(-30))).status, 'valid');
    assert.equal((await status(t, north)).checked_out_at, null);
    assert.equal((await exit(t, south, at(-20))).status, 'checked_out');
    assert.equal((await status(t, north)).checked_out_at, at(-20));
    assert.equal((await entry(t, north, at(-10))).status, 'valid');
    const back = await status(t, north);
    assert.deepEqual([back.inside, back.checked_in_at, back.checked_out_at], [true, at(-10), null]);
  });
});
