import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { adminCall, enrollScanner } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { offlineReason, syncedDevice } from '../helpers/synced-device.ts';

/**
 * The rules that count event days, differentially: random events (a zone, a day start, maybe an end),
 * random ticket types (maybe `max_days`, maybe `valid_days`, re-entry after an exit or any) and random
 * histories of entries and exits across Berlin's fall-back night are played against the issuer on each
 * store; then a freshly synced device must answer the next scan offline exactly as the issuer answers
 * it online at the same moment.
 */
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Friday 23 October 2026, 12:00 UTC: the histories run over Berlin's fall-back night (the 25th). */
const BASE = Date.parse('2026-10-23T12:00:00Z');
const KEY_EXPIRY = { key_expires_at: '2027-01-01T00:00:00Z' };

const world = fc.record({
  timezone: fc.constantFrom('Europe/Berlin', 'America/New_York', 'UTC'),
  dayStartsAt: fc.constantFrom('00:00', '02:30', '06:00', '23:30'),
  /** event_date, minutes from BASE. */
  start: fc.integer({ min: -DAY / MINUTE, max: (2 * DAY) / MINUTE }),
  /** ends_at, minutes after event_date; null: an event without an end. */
  length: fc.option(fc.integer({ min: 0, max: (3 * DAY) / MINUTE }), { nil: null }),
  type: fc.option(
    fc.record({
      reentry: fc.constantFrom('after_exit', 'any'),
      max_days: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      valid_days: fc.option(fc.subarray(['2026-10-23', '2026-10-24', '2026-10-25', '2026-10-26'], { minLength: 1 }), {
        nil: null,
        freq: 4,
      }),
    }),
    { nil: null },
  ),
  /** Scans before the one compared: minutes after the one before (the first after BASE), and which way. */
  history: fc.array(fc.record({ after: fc.integer({ min: 1, max: 1200 }), way: fc.constantFrom('in', 'out') }), {
    maxLength: 7,
  }),
  /** The scan compared: minutes after the last one. */
  probe: fc.integer({ min: 1, max: 1200 }),
});

await eachBackend('the rules that count event days: a synced device answers as the issuer', ({ it, issuer }) => {
  it('after random histories, the next scan offline is the issuer’s answer online', async () => {
    const t = issuer();
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        t.clock.set(new Date(BASE - 2 * DAY));
        const eventDate = BASE + w.start * MINUTE;
        const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
          name: 'Differential',
          event_date: new Date(eventDate).toISOString(),
          ...(w.length === null ? {} : { ends_at: new Date(eventDate + w.length * MINUTE).toISOString() }),
          timezone: w.timezone,
          day_starts_at: w.dayStartsAt,
        });
        if (w.type !== null) await adminCall(t.app, 'PUT', `/admin/v1/events/${eid}/ticket-types/Pass`, w.type);
        const ticket = await adminCall<{ tid: string; ticket_token: string }>(
          t.app,
          'POST',
          `/admin/v1/events/${eid}/tickets`,
          { holder_name: 'Ada Lovelace', ticket_type: 'Pass' },
        );
        const scannerId = randomUUID();
        const { apiKey } = await enrollScanner(t.app, eid, scannerId, undefined, KEY_EXPIRY);
        const scan = async (way: string) => {
          const res = await t.app.inject({
            method: 'POST',
            url: way === 'in' ? '/api/v1/tickets/check-in' : '/api/v1/tickets/check-out',
            headers: { authorization: `Bearer ${apiKey}` },
            payload: {
              tid: ticket.tid,
              eid,
              scanned_at: t.clock.now().toISOString(),
              scanner_id: scannerId,
              idempotency_key: randomUUID(),
            },
          });
          const body = res.json() as { status?: string; error?: { details: { reason?: string } } };
          return body.status ?? String(body.error?.details.reason);
        };
        let at = BASE;
        for (const move of w.history) {
          at += move.after * MINUTE;
          t.clock.set(new Date(at));
          await scan(move.way);
        }
        t.clock.set(new Date(at + w.probe * MINUTE));
        const device = await syncedDevice(t, eid, KEY_EXPIRY);
        try {
          const offline = await offlineReason(device, ticket.ticket_token);
          assert.equal(offline, await scan('in'), `at ${t.clock.now().toISOString()}`);
        } finally {
          await device.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
