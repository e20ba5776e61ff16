import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { adminCall, enrollScanner } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { offlineReason, syncedDevice } from '../helpers/synced-device.ts';

/**
 * An event with `ends_at` bounds every type by its days (CONTRACT.md, fifth release): `valid_days: null`
 * then means every event day from the day of `event_date` to the day of `ends_at`, and a scan outside
 * them answers `not_valid_now`, online, in an upload and offline on a synced device. An event without
 * `ends_at` keeps the fourth release's behaviour: no date bounds it.
 *
 * The event: Friday 5 June 2026, 18:00 in Berlin, to Sunday 7 June, 23:00; days start at 06:00, so
 * its days are 5, 6 and 7 June, the last one ending at 06:00 on Monday.
 */
const EVENT = {
  name: 'Harbour Weekend',
  event_date: '2026-06-05T16:00:00Z',
  ends_at: '2026-06-07T21:00:00Z',
  timezone: 'Europe/Berlin',
  day_starts_at: '06:00',
};

interface Answer {
  status?: string;
  error?: { code: string; details: Record<string, unknown> };
}

await eachBackend('an event with an end bounds every type by its days', ({ it, issuer }) => {
  /** An event, its declared types, a scanner key, and a device synced after the declarations. */
  async function weekend(event: Record<string, unknown>) {
    const t = issuer();
    t.clock.set('2026-06-04T12:00:00Z');
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', event);
    const declare = (label: string, rules: unknown) =>
      adminCall(t.app, 'PUT', `/admin/v1/events/${eid}/ticket-types/${label}`, rules);
    await declare('Weekend', { max_entries: 3 });
    await declare('Monday', { valid_days: ['2026-06-08'] });
    const scannerId = randomUUID();
    const { apiKey } = await enrollScanner(t.app, eid, scannerId);
    const device = await syncedDevice(t, eid);
    /** A fresh ticket of the type: its tid and token. */
    const ticket = async (ticketType: string) =>
      adminCall<{ tid: string; ticket_token: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Ada Lovelace',
        ticket_type: ticketType,
      });
    const body = (tid: string, scannedAt = t.clock.now().toISOString()) => ({
      tid,
      eid,
      scanned_at: scannedAt,
      scanner_id: scannerId,
      idempotency_key: randomUUID(),
    });
    /** The issuer's answer to an entry scanned now. */
    const online = async (tid: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-in',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: body(tid),
      });
      return { status: res.statusCode, body: res.json() as Answer };
    };
    const reasonOf = (answer: { body: Answer }) => answer.body.status ?? String(answer.body.error?.details.reason);
    return { t, eid, apiKey, device, ticket, body, online, reasonOf };
  }

  it('the issuer and a synced device admit on the event’s days only; a type’s own valid_days still decide', async () => {
    const w = await weekend(EVENT);
    try {
      const rules = await w.t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${w.eid}/rules`,
        headers: { authorization: `Bearer ${w.apiKey}` },
      });
      assert.deepEqual(rules.json().event_days, { first: '2026-06-05', last: '2026-06-07' });
      const moments: [string, string, Record<string, string>][] = [
        ['2026-06-05T03:59:00Z', 'Fri 05:59, Thursday’s day', { GA: 'not_valid_now', Weekend: 'not_valid_now' }],
        [
          '2026-06-05T04:00:00Z',
          'Fri 06:00, the first day',
          { GA: 'valid', Weekend: 'valid', Monday: 'not_valid_now' },
        ],
        ['2026-06-08T03:59:00Z', 'Mon 05:59, Sunday’s day', { GA: 'valid', Weekend: 'valid', Monday: 'not_valid_now' }],
        ['2026-06-08T04:00:00Z', 'Mon 06:00, after the last day', { GA: 'not_valid_now', Monday: 'valid' }],
      ];
      for (const [at, when, expected] of moments) {
        w.t.clock.set(at);
        for (const [type, reason] of Object.entries(expected)) {
          const { tid, ticket_token: token } = await w.ticket(type);
          assert.equal(await offlineReason(w.device, token), reason, `${type} at ${when}, offline`);
          const answer = await w.online(tid);
          assert.equal(w.reasonOf(answer), reason, `${type} at ${when}, online`);
          assert.equal(answer.status, reason === 'valid' ? 200 : 403);
        }
      }
    } finally {
      await w.device.close();
    }
  });

  it('a refusal says which day it is and which days the event runs on; an upload answers as the single scan', async () => {
    const w = await weekend(EVENT);
    try {
      w.t.clock.set('2026-06-05T04:00:00Z');
      const { tid } = await w.ticket('GA');
      const upload = await w.t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: { authorization: `Bearer ${w.apiKey}` },
        payload: {
          scans: [
            { action: 'check_in', ...w.body(tid, '2026-06-05T03:59:00Z') },
            { action: 'check_in', ...w.body(tid, '2026-06-05T04:00:00Z') },
          ],
        },
      });
      const [early, first] = (upload.json() as { results: { status_code: number; body: Answer }[] }).results;
      assert.equal(early!.status_code, 403);
      const details = early!.body.error!.details;
      const said = ['reason', 'event_day', 'valid_days', 'event_days', 'ticket_type', 'entries'];
      assert.deepEqual(Object.fromEntries(said.map((field) => [field, details[field]])), {
        reason: 'not_valid_now',
        event_day: '2026-06-04',
        valid_days: null,
        event_days: { first: '2026-06-05', last: '2026-06-07' },
        ticket_type: 'GA',
        entries: 0,
      });
      assert.deepEqual([first!.status_code, first!.body.status], [200, 'valid']);
    } finally {
      await w.device.close();
    }
  });

  it('an event without an end keeps today’s rules: no date bounds its tickets', async () => {
    const { ends_at: _end, ...open } = EVENT;
    const w = await weekend(open);
    try {
      const rules = await w.t.app.inject({
        method: 'GET',
        url: `/api/v1/events/${w.eid}/rules`,
        headers: { authorization: `Bearer ${w.apiKey}` },
      });
      assert.equal(rules.json().event_days, null);
      w.t.clock.set('2026-06-04T12:00:00Z'); // the day before event_date
      for (const type of ['GA', 'Weekend']) {
        const { tid, ticket_token: token } = await w.ticket(type);
        assert.equal(await offlineReason(w.device, token), 'valid', `${type}, offline`);
        assert.equal(w.reasonOf(await w.online(tid)), 'valid', `${type}, online`);
      }
    } finally {
      await w.device.close();
    }
  });
});
