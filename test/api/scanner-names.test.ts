import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

await eachBackend('scanners enrolled without a name are named by the issuer', ({ it, issuer }) => {
  const app = () => issuer().app;

  async function newEvent() {
    issuer().clock.set(T0);
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Names',
      event_date: '2026-06-02T18:00:00Z',
    });
    const put = await app().inject({
      method: 'PUT',
      url: `/admin/v1/events/${eid}/gates/north`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: 'Gate north', admits: null },
    });
    assert.equal(put.statusCode, 200);
    return eid;
  }

  /** Enrols a scanner with a new token; `name` undefined sends no scanner_name at all. */
  async function enrol(eid: string, gateId: string | null, name?: string, scannerId = randomUUID()) {
    const { token } = await adminCall<{ token: string }>(
      app(),
      'POST',
      `/admin/v1/events/${eid}/enrollment-tokens`,
      gateId === null ? {} : { gate_id: gateId },
    );
    const res = await app().inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token, scanner_id: scannerId, ...(name === undefined ? {} : { scanner_name: name }) },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().scanner_name as string;
  }

  it('at a declared gate: "<gate name>, phone N", N counting the scanners enrolled there, named ones included', async () => {
    const eid = await newEvent();
    assert.equal(await enrol(eid, 'north'), 'Gate north, phone 1');
    assert.equal(await enrol(eid, 'north', '   '), 'Gate north, phone 2', 'a blank name is no name');
    assert.equal(await enrol(eid, 'north', 'Bar door'), 'Bar door', 'a name sent is kept');
    assert.equal(await enrol(eid, 'NORTH', ''), 'Gate north, phone 4', 'the declared gate, whatever its case');
    const { scanners } = await adminCall<{ scanners: { name: string }[] }>(
      app(),
      'GET',
      `/admin/v1/events/${eid}/scanners`,
    );
    assert.deepEqual(scanners.map((s) => s.name).sort(), [
      'Bar door',
      'Gate north, phone 1',
      'Gate north, phone 2',
      'Gate north, phone 4',
    ]);
  });

  it('at an undeclared gate its gate_id names it; without a gate, "Scanner N"; each gate counts on its own', async () => {
    const eid = await newEvent();
    assert.equal(await enrol(eid, 'south'), 'south, phone 1');
    assert.equal(await enrol(eid, null), 'Scanner 1');
    assert.equal(await enrol(eid, 'south'), 'south, phone 2');
    assert.equal(await enrol(eid, null), 'Scanner 2');
    assert.equal(await enrol(eid, 'north'), 'Gate north, phone 1');
    const other = await newEvent();
    assert.equal(await enrol(other, null), 'Scanner 1', 'another event counts its own scanners');
  });

  it('a device enrolling again at the same gate keeps the name it had there', async () => {
    const eid = await newEvent();
    const device = randomUUID();
    assert.equal(await enrol(eid, 'north', undefined, device), 'Gate north, phone 1');
    assert.equal(await enrol(eid, 'north'), 'Gate north, phone 2');
    assert.equal(await enrol(eid, 'north', undefined, device), 'Gate north, phone 1');
    assert.equal(await enrol(eid, 'north'), 'Gate north, phone 3');
  });

  it('phones enrolling at the same moment at one gate get different numbers', async () => {
    const eid = await newEvent();
    const names = await Promise.all(Array.from({ length: 8 }, () => enrol(eid, 'north')));
    assert.deepEqual([...names].sort(), Array.from({ length: 8 }, (_, i) => `Gate north, phone ${i + 1}`).sort());
  });
});
