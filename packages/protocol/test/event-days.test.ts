import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type EventCalendar, eventDayOf, eventDayStart, withinHours } from '../src/index.ts';

/**
 * Event days are total and monotonic in every zone (CONTRACT.md, fifth release): each instant belongs
 * to exactly one event day, days never overlap or go back; a `day_starts_at` a zone skips starts the
 * day at the first instant after the gap, one it repeats at its first occurrence. Checked on zones
 * with summer time (a 30-minute shift, skipped and repeated midnights among them), any day start.
 */
const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Europe/London',
  'Pacific/Auckland',
  'Asia/Beirut',
] as const;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const offsetNames = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset at an instant, as `Intl` names it ("GMT+10:30"): read apart from the code under test. */
function offsetName(zone: string, at: number): string {
  let format = offsetNames.get(zone);
  if (format === undefined)
    offsetNames.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })));
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')!.value;
}

/** The instants (to the minute) a zone changed its offset in 2025–2027: where the nights are odd. */
function changesOf(zone: string): number[] {
  const changes: number[] = [];
  for (let at = Date.UTC(2025, 0, 1); at < Date.UTC(2028, 0, 1); at += HOUR) {
    if (offsetName(zone, at) === offsetName(zone, at + HOUR)) continue;
    let minute = at;
    while (offsetName(zone, minute) === offsetName(zone, at)) minute += MINUTE;
    changes.push(minute);
  }
  return changes;
}

const CHANGES = new Map(ZONES.map((zone) => [zone, changesOf(zone)]));

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The local wall clock of an instant, "YYYY-MM-DDTHH:MM:SS", read apart from the code under test. */
function wallOf(zone: string, at: number): string {
  let format = wallClocks.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    wallClocks.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}`;
}

const nextDate = (date: string): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

const calendar = fc.record({
  timezone: fc.constantFrom(...ZONES),
  day_starts_at: fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45, 59, 1))
    .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
});

/** An instant within a few hours of one of the zone's changes (most of them), or anywhere in 2025–2027. */
const instantIn = (zone: string) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...CHANGES.get(zone as (typeof ZONES)[number])!),
          fc.integer({ min: -27 * HOUR, max: 27 * HOUR }),
        )
        .map(([at, d]) => at + d),
    },
    { weight: 1, arbitrary: fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }) },
  );

/** A calendar, an instant, and a second instant up to three hours later (often the same night). */
const calendarAndInstants = calendar.chain((cal) =>
  fc
    .tuple(fc.constant(cal as EventCalendar), instantIn(cal.timezone), fc.integer({ min: 0, max: 3 * HOUR }))
    .map(([c, at, later]) => [c, at, at + later] as const),
);

describe('event days in zones with summer time, any day start', () => {
  it('every zone of the check changes its offset twice a year (the nights under test exist)', () => {
    for (const zone of ZONES) assert.equal(CHANGES.get(zone)!.length, 6, zone);
  });

  it('are monotonic: a later instant is never on an earlier day', () => {
    fc.assert(
      fc.property(calendarAndInstants, ([cal, early, late]) => {
        assert.ok(eventDayOf(new Date(early), cal) <= eventDayOf(new Date(late), cal));
      }),
      { numRuns: 3000 },
    );
  });

  it('are total and do not overlap: a day starts at or before the instant, the next one after it', () => {
    fc.assert(
      fc.property(calendarAndInstants, ([cal, at]) => {
        const day = eventDayOf(new Date(at), cal);
        assert.match(day, /^\d{4}-\d{2}-\d{2}$/);
        assert.ok(eventDayStart(day, cal).getTime() <= at, `${day} starts after ${new Date(at).toISOString()}`);
        assert.ok(eventDayStart(nextDate(day), cal).getTime() > at, `the day after ${day} has started`);
      }),
      { numRuns: 3000 },
    );
  });

  it('start at the first instant the wall clock reads the day start: a repeated one first, a skipped one after the gap', () => {
    fc.assert(
      fc.property(calendarAndInstants, ([cal, at]) => {
        const day = eventDayOf(new Date(at), cal);
        const start = eventDayStart(day, cal).getTime();
        const wanted = `${day}T${cal.day_starts_at}:00`;
        assert.ok(wallOf(cal.timezone, start) >= wanted, `${day} starts before ${wanted}`);
        assert.ok(
          wallOf(cal.timezone, start - 1000) < wanted,
          `a second before ${day}'s start reads ${wanted} already`,
        );
        // Unless the zone skips that local time, the day starts exactly on it; else right after the gap.
        if (wallOf(cal.timezone, start) !== wanted) {
          assert.notEqual(
            offsetName(cal.timezone, start - 1000),
            offsetName(cal.timezone, start),
            'only a gap moves it',
          );
        }
        assert.equal(eventDayOf(new Date(start), cal), day, 'the day an instant starts belongs to it');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('event days on the nights the clocks change', () => {
  const on = (timezone: string, day_starts_at: string): EventCalendar => ({ timezone, day_starts_at });
  const startOf = (day: string, cal: EventCalendar) => eventDayStart(day, cal).toISOString();

  it('a day start the zone repeats is its first occurrence, and the day stays put through the repeat', () => {
    const berlin = on('Europe/Berlin', '02:30'); // 25 October 2026: 03:00 CEST back to 02:00 CET
    assert.equal(startOf('2026-10-25', berlin), '2026-10-25T00:30:00.000Z'); // 02:30 CEST
    assert.equal(eventDayOf('2026-10-25T00:29:59Z', berlin), '2026-10-24');
    for (const at of ['2026-10-25T00:30:00Z', '2026-10-25T01:10:00Z', '2026-10-25T01:30:00Z', '2026-10-26T01:29:59Z']) {
      assert.equal(eventDayOf(at, berlin), '2026-10-25', at); // 02:10 CET, the second time round, included
    }
    assert.equal(eventDayOf('2026-10-26T01:30:00Z', berlin), '2026-10-26');
    const newYork = on('America/New_York', '01:30'); // 1 November 2026: 02:00 EDT back to 01:00 EST
    assert.equal(startOf('2026-11-01', newYork), '2026-11-01T05:30:00.000Z');
    assert.equal(eventDayOf('2026-11-01T06:15:00Z', newYork), '2026-11-01'); // 01:15 EST
    const london = on('Europe/London', '01:15');
    assert.equal(startOf('2026-10-25', london), '2026-10-25T00:15:00.000Z');
    const auckland = on('Pacific/Auckland', '02:30'); // 5 April 2026: 03:00 NZDT back to 02:00 NZST
    assert.equal(startOf('2026-04-05', auckland), '2026-04-04T13:30:00.000Z');
    const lordHowe = on('Australia/Lord_Howe', '01:45'); // 5 April 2026: 02:00 back to 01:30 (30 minutes)
    assert.equal(startOf('2026-04-05', lordHowe), '2026-04-04T14:45:00.000Z');
    assert.equal(eventDayOf('2026-04-04T15:20:00Z', lordHowe), '2026-04-05'); // 01:50, the second time round
  });

  it('a day start the zone skips moves to the first instant after the gap', () => {
    assert.equal(startOf('2026-03-29', on('Europe/Berlin', '02:30')), '2026-03-29T01:00:00.000Z'); // 03:00 CEST
    assert.equal(startOf('2026-10-04', on('Australia/Lord_Howe', '02:15')), '2026-10-03T15:30:00.000Z'); // 02:30
    // Santiago and Beirut skip midnight itself: a day starting at 00:00 starts at 01:00.
    assert.equal(startOf('2026-09-06', on('America/Santiago', '00:00')), '2026-09-06T04:00:00.000Z');
    assert.equal(eventDayOf('2026-09-06T03:59:59Z', on('America/Santiago', '00:00')), '2026-09-05');
    assert.equal(startOf('2026-03-29', on('Asia/Beirut', '00:00')), '2026-03-28T22:00:00.000Z');
  });

  it('a midnight the zone repeats: the evening lived twice stays on its own day', () => {
    const santiago = on('America/Santiago', '00:00'); // 5 April 2026: 00:00 back to 23:00 on the 4th
    assert.equal(startOf('2026-04-05', santiago), '2026-04-05T04:00:00.000Z');
    assert.equal(eventDayOf('2026-04-05T03:30:00Z', santiago), '2026-04-04'); // 23:30, the second time round
    const beirut = on('Asia/Beirut', '23:30'); // 25 October 2026: 00:00 back to 23:00 on the 24th
    assert.equal(startOf('2026-10-24', beirut), '2026-10-24T20:30:00.000Z'); // the first 23:30
    assert.equal(eventDayOf('2026-10-24T21:45:00Z', beirut), '2026-10-24'); // the second 23:45
  });

  it('hours within a day that starts in a repeated hour stay open through the repeat, and close on time', () => {
    const berlin = on('Europe/Berlin', '02:30');
    const early = { from: '02:30', until: '03:00' };
    const inside = (at: string) => withinHours(at, early, berlin);
    assert.equal(inside('2026-10-25T00:29:00Z'), false); // 02:29 CEST: the day before, its last minute
    assert.equal(inside('2026-10-25T00:30:00Z'), true); // 02:30 CEST, the day's start
    assert.equal(inside('2026-10-25T01:10:00Z'), true); // 02:10 CET: after the start, read as at the start
    assert.equal(inside('2026-10-25T01:45:00Z'), true); // 02:45 CET
    assert.equal(inside('2026-10-25T02:00:00Z'), false); // 03:00 CET
    const day = { from: '10:00', until: '18:00' };
    assert.equal(withinHours('2026-10-25T08:59:00Z', day, berlin), false); // 09:59 CET
    assert.equal(withinHours('2026-10-25T09:00:00Z', day, berlin), true); // 10:00 CET
    assert.equal(withinHours('2026-10-25T17:00:00Z', day, berlin), false); // 18:00 CET
    // A night window across the spring change: 01:30 is in, 03:30 (after the skipped hour) is not.
    const night = on('Europe/Berlin', '06:00');
    const late = { from: '22:00', until: '03:00' };
    assert.equal(withinHours('2026-03-29T00:30:00Z', late, night), true); // 01:30 CET
    assert.equal(withinHours('2026-03-29T01:00:00Z', late, night), false); // 03:00 CEST
  });
});
