import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { adminCall, enrollScanner } from '../helpers/app.ts';
import { autoExits, eventually, fewLooks, type Gathering, status, wire } from '../helpers/auto-exit.ts';
import { eachBackend } from '../helpers/backends.ts';

/**
 * Event days are total and monotonic in every zone (CONTRACT.md, fifth release), through the API: in
 * Berlin on 25 October 2026 the clocks go back from 03:00 CEST to 02:00 CET, so with days starting at
 * 02:30 the local time 02:30 comes twice. The day starts at the first 02:30 (00:30 UTC) and stays that
 * day through the repeated hour: a scan at 02:10 CET (01:10 UTC) belongs to Sunday, and the automatic
 * exit counts holders out at the first 02:30, never at a moment still to come.
 */
await eachBackend('event days on the night the clocks go back', ({ it, issuer }) => {
  it('the repeated hour belongs to the day that started at its first 02:30: days, hours, automatic exit', async () => {
    const { app, clock } = issuer();
    clock.set('2026-10-24T20:00:00Z');
    const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: 'Long Night',
      event_date: '2026-10-24T18:00:00Z',
      timezone: 'Europe/Berlin',
      day_starts_at: '02:30',
      auto_exit: true,
    });
    await adminCall(app, 'PUT', `/admin/v1/events/${eid}/ticket-types/Sunday`, {
      valid_days: ['2026-10-25'],
      hours: { from: '02:30', until: '03:00' },
    });
    const issued = await adminCall<{ tickets: { tid: string }[] }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: [
        { holder_name: 'Saturday Night', ticket_type: 'Night' },
        { holder_name: 'Sunday Early', ticket_type: 'Sunday' },
      ],
    });
    const [saturday, sunday] = issued.tickets.map((t) => t.tid) as [string, string];
    const scannerId = randomUUID();
    const g: Gathering = { eid, tids: [saturday, sunday], scannerId, ...(await enrollScanner(app, eid, scannerId)) };
    /** An entry or exit scanned now: its status, or the reason of a refusal by the entry rules. */
    const pass = async (way: 'in' | 'out', tid: string) => {
      const res = await app.inject({
        method: 'POST',
        url: way === 'in' ? '/api/v1/tickets/check-in' : '/api/v1/tickets/check-out',
        headers: { authorization: `Bearer ${g.apiKey}` },
        payload: { tid, eid, scanned_at: wire(clock.now()), scanner_id: scannerId, idempotency_key: randomUUID() },
      });
      const body = res.json() as { status?: string; error?: { details: { reason?: string } } };
      return body.status ?? body.error?.details.reason;
    };

    clock.set('2026-10-24T23:00:00Z'); // 01:00 CEST: still Saturday's day
    assert.equal(await pass('in', saturday), 'valid');
    assert.equal(await pass('in', sunday), 'not_valid_now');

    // 02:45 CEST: Sunday's day started at 02:30 CEST; the holder inside since Saturday is counted out then.
    clock.set('2026-10-25T00:45:00Z');
    await eventually('the automatic exit', async () => (await autoExits(app, g)).length === 1);
    const [exit] = await autoExits(app, g);
    assert.deepEqual([exit!.tid, exit!.at], [saturday, '2026-10-25T00:30:00Z']);

    // 02:10 CET, the second time round: the same day, and inside the 02:30–03:00 window (at its start).
    clock.set('2026-10-25T01:10:00Z');
    assert.equal(await pass('in', sunday), 'valid');
    clock.set('2026-10-25T01:40:00Z'); // 02:40 CET: no day start again, nobody counted out again
    await fewLooks();
    assert.equal((await autoExits(app, g)).length, 1);
    assert.equal((await status(app, g, sunday)).inside, true);
    assert.equal(await pass('out', sunday), 'checked_out');
    clock.set('2026-10-25T02:00:00Z'); // 03:00 CET: the window has closed
    assert.equal(await pass('in', sunday), 'not_valid_now');
  });
});
