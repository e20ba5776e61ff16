import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/backends.ts';
import { adminCall, enrollScanner, postCheckIn, type TestIssuer } from '../helpers/app.ts';

/**
 * The event report (CONTRACT.md, "After the event: reports and exports"), every field on a small
 * crafted history: two types, two gates, an exit and a re-entry, an annulled entry, revoked tickets
 * (one used, one not), and an event in Asia/Kolkata (UTC+05:30) whose evening runs past midnight.
 */

interface Report {
  tickets: { issued: number; revoked: number; checked_in: number; no_show: number };
  by_type: { ticket_type: string; issued: number; checked_in: number; no_show: number }[];
  by_gate: { gate_id: string | null; entries: number; exits: number }[];
  by_hour: { hour: string; entries: number; exits: number; inside_at_end: number }[];
  by_day: { date: string; entries: number; unique_holders: number }[];
  peak_inside: { at: string | null; inside: number };
}

/** The Kolkata night: tickets, scanners at two gates, and the moves of the history. */
async function kolkataNight(t: TestIssuer) {
  const { app, clock } = t;
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: 'Diwali Night',
    event_date: '2026-06-01T14:30:00Z',
    timezone: 'Asia/Kolkata',
    day_starts_at: '06:00',
  });
  await adminCall(app, 'PUT', `/admin/v1/events/${eid}/ticket-types/GA`, { reentry: 'after_exit' });
  const ticket = async (name: string, type: string) =>
    (
      await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: name,
        ticket_type: type,
      })
    ).tid;
  const [g1, g2, , g4] = [
    await ticket('G1', 'GA'),
    await ticket('G2', 'GA'),
    await ticket('G3', 'GA'),
    await ticket('G4', 'GA'),
  ];
  const [v1, v2, v3] = [await ticket('V1', 'VIP'), await ticket('V2', 'VIP'), await ticket('V3', 'VIP')];
  const scanner = async (gate: string) => {
    const scannerId = randomUUID();
    return {
      scannerId,
      ...(await enrollScanner(app, eid, scannerId, gate, { key_expires_at: '2026-06-04T02:00:00Z' })),
    };
  };
  const [north, south] = [await scanner('north'), await scanner('south')];
  const body = (s: typeof north, tid: string, at: string) => {
    clock.set(at);
    return { tid, eid, scanned_at: at, scanner_id: s.scannerId, idempotency_key: randomUUID() };
  };
  const enter = async (s: typeof north, tid: string, at: string) => {
    const sent = body(s, tid, at);
    const res = await postCheckIn(app, s.apiKey, sent);
    assert.equal(res.json().status, 'valid', res.body);
    return sent.idempotency_key;
  };
  const exit = async (s: typeof north, tid: string, at: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-out',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: body(s, tid, at),
    });
    assert.equal(res.json().status, 'checked_out', res.body);
  };
  await enter(north, g1, '2026-06-01T17:10:00.000Z'); // 22:40 in Kolkata
  await enter(south, g2, '2026-06-01T17:45:00.000Z'); // 23:15
  await enter(north, v1, '2026-06-01T18:40:00.000Z'); // 00:10 on 2 June: still the event day of 1 June
  await exit(north, g1, '2026-06-01T18:50:00.000Z');
  await enter(south, v2, '2026-06-01T18:55:00.000Z');
  const undone = await enter(north, v3, '2026-06-01T19:05:00.000Z');
  const annul = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in/annul',
    headers: { authorization: `Bearer ${north.apiKey}` },
    payload: { eid, scanner_id: north.scannerId, idempotency_key: undone, annulled_at: '2026-06-01T19:05:30.000Z' },
  });
  assert.equal(annul.statusCode, 200, annul.body);
  await enter(north, g1, '2026-06-02T01:00:00.000Z'); // 06:30 on 2 June: the next event day
  clock.set('2026-06-02T02:00:00.000Z');
  await adminCall(app, 'POST', `/admin/v1/tickets/${v2}/revoke`, { reason: 'refund' });
  await adminCall(app, 'POST', `/admin/v1/tickets/${g4}/revoke`, { reason: 'refund' });
  return { eid, north };
}

/** Hours of Kolkata's clock start at half past, UTC: 16:30Z is 22:00 there. */
const hour = (utc: string, entries: number, exits: number, inside: number) => ({
  hour: utc,
  entries,
  exits,
  inside_at_end: inside,
});

await eachBackend('the event report', ({ it, issuer }) => {
  it('counts tickets, no-shows, types, gates, hours and days in the zone; annulled entries never count', async () => {
    const t = issuer();
    const { eid } = await kolkataNight(t);
    const report = await adminCall<Report>(t.app, 'GET', `/admin/v1/events/${eid}/report`);
    // V3's only entry was annulled: unused again, a no-show. V2 came in, then was revoked: checked in,
    // revoked, not a no-show. G4 never came and was revoked: not a no-show. G3 never came.
    assert.deepEqual(report.tickets, { issued: 7, revoked: 2, checked_in: 4, no_show: 2 });
    assert.deepEqual(report.by_type, [
      { ticket_type: 'GA', issued: 4, checked_in: 2, no_show: 1 },
      { ticket_type: 'VIP', issued: 3, checked_in: 2, no_show: 1 },
    ]);
    assert.deepEqual(report.by_gate, [
      { gate_id: 'north', entries: 3, exits: 1 },
      { gate_id: 'south', entries: 2, exits: 0 },
    ]);
    assert.deepEqual(report.by_hour, [
      hour('2026-06-01T16:30:00Z', 1, 0, 1),
      hour('2026-06-01T17:30:00Z', 1, 0, 2),
      hour('2026-06-01T18:30:00Z', 2, 1, 3),
      hour('2026-06-01T19:30:00Z', 0, 0, 3),
      hour('2026-06-01T20:30:00Z', 0, 0, 3),
      hour('2026-06-01T21:30:00Z', 0, 0, 3),
      hour('2026-06-01T22:30:00Z', 0, 0, 3),
      hour('2026-06-01T23:30:00Z', 0, 0, 3),
      hour('2026-06-02T00:30:00Z', 1, 0, 4),
    ]);
    assert.deepEqual(report.by_day, [
      { date: '2026-06-01', entries: 4, unique_holders: 4 },
      { date: '2026-06-02', entries: 1, unique_holders: 1 },
    ]);
    assert.deepEqual(report.peak_inside, { at: '2026-06-02T01:00:00Z', inside: 4 });
  });

  it('an event without tickets reports zeros and empty lists; an unknown event is 404', async () => {
    const t = issuer();
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'Quiet Night',
      event_date: '2026-06-02T18:00:00Z',
    });
    assert.deepEqual(await adminCall<Report>(t.app, 'GET', `/admin/v1/events/${eid}/report`), {
      tickets: { issued: 0, revoked: 0, checked_in: 0, no_show: 0 },
      by_type: [],
      by_gate: [],
      by_hour: [],
      by_day: [],
      peak_inside: { at: null, inside: 0 },
    });
    const unknown = await adminCall<{ error: { code: string } }>(
      t.app,
      'GET',
      '/admin/v1/events/evt_01J00000000000000000000000/report',
      undefined,
      404,
    );
    assert.equal(unknown.error.code, 'NOT_FOUND');
  });

  it("a scanner's key is no admin credential: 401", async () => {
    const t = issuer();
    const { eid, north } = await kolkataNight(t);
    const res = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/events/${eid}/report`,
      headers: { authorization: `Bearer ${north.apiKey}` },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, 'UNAUTHORIZED');
  });
});
