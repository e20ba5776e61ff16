import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { eventDayOf } from '@ticket-issuer/protocol';
import { dueAutoExit } from '../../src/domain/auto-exit.ts';

const HOUR = 3_600_000;

/** The 2026 offset changes of zones with summer time (a 30-minute one, skipped and repeated midnights). */
const CHANGES: Record<string, string[]> = {
  'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  'America/Santiago': ['2026-04-05T03:00:00Z', '2026-09-06T04:00:00Z'],
  'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
  'Pacific/Auckland': ['2026-04-04T14:00:00Z', '2026-09-26T14:00:00Z'],
};

const event = (timezone: string, day_starts_at: string) => ({
  eid: 'evt_night',
  timezone,
  day_starts_at,
  since: '2026-01-01T00:00:00.000Z',
});

describe('the automatic exit’s day, on the nights the clocks change', () => {
  it('is the event day of the moment it looks, and its start is never after that moment', () => {
    const zoneAndNow = fc.constantFrom(...Object.keys(CHANGES)).chain((zone) =>
      fc.tuple(
        fc.constant(zone),
        fc
          .constantFrom(...CHANGES[zone]!)
          .chain((at) => fc.integer({ min: -26 * HOUR, max: 26 * HOUR }).map((d) => new Date(Date.parse(at) + d))),
      ),
    );
    const dayStart = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    fc.assert(
      fc.property(zoneAndNow, dayStart, ([zone, now], start) => {
        const due = dueAutoExit(event(zone, start), now)!;
        assert.ok(due.at.getTime() <= now.getTime(), `${due.at.toISOString()} is after ${now.toISOString()}`);
        assert.equal(due.day, eventDayOf(now, { timezone: zone, day_starts_at: start }));
      }),
      { numRuns: 2000 },
    );
  });

  it('in the hour Berlin repeats, a day starting at 02:30 started at the first 02:30', () => {
    const berlin = event('Europe/Berlin', '02:30');
    for (const now of ['2026-10-25T00:45:00Z', '2026-10-25T01:10:00Z', '2026-10-25T01:45:00Z']) {
      const due = dueAutoExit(berlin, new Date(now))!;
      assert.deepEqual([due.day, due.at.toISOString()], ['2026-10-25', '2026-10-25T00:30:00.000Z'], now);
    }
  });
});
