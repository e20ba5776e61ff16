import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { adminCall, enrollScanner } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { offlineReason, syncedDevice } from '../helpers/synced-device.ts';

/**
 * `max_days` (CONTRACT.md, fifth release): the number of distinct event days on which a ticket may
 * enter ("any 2 days of 3"). A first entry on one day too many answers `entry_limit_reached`, its
 * details saying `max_days` and `days_used`; re-entries on a day already used never count against it.
 *
 * The event: Friday 5 to Sunday 7 June 2026 in Berlin, days starting at 06:00 (a night belongs to the
 * day before it).
 */
const EVENT = {
  name: 'Three Days',
  event_date: '2026-06-05T16:00:00Z',
  ends_at: '2026-06-07T21:00:00Z',
  timezone: 'Europe/Berlin',
  day_starts_at: '06:00',
};

interface Answer {
  status?: string;
  ticket?: { entries?: number };
  error?: { code: string; details: Record<string, unknown> };
}

await eachBackend('max_days: entries on any N event days', ({ it, issuer }) => {
  /** The event with a type of these rules, one ticket of it, a scanner key; scans at the clock's time. */
  async function festival(rules: Record<string, unknown>) {
    const t = issuer();
    t.clock.set('2026-06-05T12:00:00Z');
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', EVENT);
    await adminCall(t.app, 'PUT', `/admin/v1/events/${eid}/ticket-types/Pass`, rules);
    const ticket = await adminCall<{ tid: string; ticket_token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      { holder_name: 'Ada Lovelace', ticket_type: 'Pass' },
    );
    const scannerId = randomUUID();
    const { apiKey } = await enrollScanner(t.app, eid, scannerId);
    /** An entry (or exit) scanned at `at`, the clock set there: the answer. */
    const scan = async (at: string, way: 'in' | 'out' = 'in') => {
      t.clock.set(at);
      const res = await t.app.inject({
        method: 'POST',
        url: way === 'in' ? '/api/v1/tickets/check-in' : '/api/v1/tickets/check-out',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { tid: ticket.tid, eid, scanned_at: at, scanner_id: scannerId, idempotency_key: randomUUID() },
      });
      const body = res.json() as Answer;
      return { code: res.statusCode, body, reason: body.status ?? String(body.error?.details.reason) };
    };
    /** One upload of entries scanned at these times (the clock at the last): each item's answer. */
    const upload = async (...times: string[]) => {
      t.clock.set(times.at(-1)!);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: {
          scans: times.map((at) => ({
            action: 'check_in',
            tid: ticket.tid,
            eid,
            scanned_at: at,
            scanner_id: scannerId,
            idempotency_key: randomUUID(),
          })),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { results: { status_code: number; body: Answer }[] }).results;
    };
    return { t, eid, ticket, scan, upload };
  }

  it('any 2 days of 3: re-entries on a used day are free, a first entry on a third day is refused, online and offline', async () => {
    const f = await festival({ reentry: 'after_exit', max_days: 2 });
    // Friday's day: an entry, an exit, a re-entry at 22:00 and one at 03:00 on Saturday (still Friday's).
    assert.equal((await f.scan('2026-06-05T17:00:00Z')).reason, 'valid');
    assert.equal((await f.scan('2026-06-05T17:30:00Z', 'out')).reason, 'checked_out');
    assert.equal((await f.scan('2026-06-05T20:00:00Z')).reason, 'valid');
    assert.equal((await f.scan('2026-06-05T20:30:00Z', 'out')).reason, 'checked_out');
    assert.equal((await f.scan('2026-06-06T01:00:00Z')).reason, 'valid', '03:00 on Saturday: Friday’s day');
    assert.equal((await f.scan('2026-06-06T01:30:00Z', 'out')).reason, 'checked_out');
    // Saturday: the second day.
    assert.equal((await f.scan('2026-06-06T15:00:00Z')).reason, 'valid');
    assert.equal((await f.scan('2026-06-06T15:30:00Z', 'out')).reason, 'checked_out');

    // A device synced now judges as the issuer: back on Saturday, yes.
    f.t.clock.set('2026-06-06T16:00:00Z');
    const device = await syncedDevice(f.t, f.eid);
    try {
      assert.equal(await offlineReason(device, f.ticket.ticket_token), 'valid', 'Saturday again, offline');
      const again = await f.scan('2026-06-06T16:00:00Z');
      assert.deepEqual([again.reason, again.body.ticket?.entries], ['valid', 5]);
      assert.equal((await f.scan('2026-06-06T16:30:00Z', 'out')).reason, 'checked_out');

      // On Sunday a device synced then (this one holds its own Saturday admission, queued) says no.
      f.t.clock.set('2026-06-07T15:00:00Z');
      const sundayDevice = await syncedDevice(f.t, f.eid);
      try {
        assert.equal(await offlineReason(sundayDevice, f.ticket.ticket_token), 'entry_limit_reached', 'offline');
      } finally {
        await sundayDevice.close();
      }
      const sunday = await f.scan('2026-06-07T15:00:00Z');
      assert.equal(sunday.code, 403);
      assert.equal(sunday.body.error?.code, 'FORBIDDEN');
      const details = sunday.body.error!.details;
      const said = ['reason', 'event_day', 'entries', 'entries_today', 'max_entries', 'max_entries_per_day'];
      assert.deepEqual(Object.fromEntries([...said, 'max_days', 'days_used'].map((k) => [k, details[k]])), {
        reason: 'entry_limit_reached',
        event_day: '2026-06-07',
        entries: 5,
        entries_today: 0,
        max_entries: null,
        max_entries_per_day: null,
        max_days: 2,
        days_used: 2,
      });
    } finally {
      await device.close();
    }
    const log = await adminCall<{ scans: { outcome: string; reason: string | null }[] }>(
      f.t.app,
      'GET',
      `/admin/v1/events/${f.eid}/scans`,
    );
    const refusal = log.scans.at(-1)!;
    assert.equal(refusal.outcome, 'entry_limit_reached');
    assert.match(String(refusal.reason), /2 of 2 days used/);
  });

  it('one day with wristbands (re-entry any): entries all that day, none the next; an upload answers the same', async () => {
    const f = await festival({ reentry: 'any', max_days: 1 });
    assert.equal((await f.scan('2026-06-05T17:00:00Z')).reason, 'valid');
    assert.equal((await f.scan('2026-06-05T23:00:00Z')).reason, 'valid', 'inside, again the same day');
    const [later, saturday] = await f.upload('2026-06-06T03:59:00Z', '2026-06-06T04:00:00Z'); // 05:59, 06:00
    assert.deepEqual([later!.status_code, later!.body.status], [200, 'valid'], 'Friday’s night: the same day');
    assert.deepEqual([saturday!.status_code, saturday!.body.error?.details.reason], [403, 'entry_limit_reached']);
    assert.deepEqual([saturday!.body.error?.details.max_days, saturday!.body.error?.details.days_used], [1, 1]);
    const single = await f.scan('2026-06-06T10:00:00Z');
    assert.deepEqual([single.code, single.reason], [403, 'entry_limit_reached'], 'the single scan answers the same');
  });
});
