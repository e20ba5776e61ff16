import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hourStartOf } from '@ticket-issuer/protocol';
import { daysOf, hoursOf, peakOf } from '../../src/domain/report-time.ts';
import type { MinuteMoves } from '../../src/store/store.ts';

/** The report's time axis: hours of the event's zone (half-hour offsets, summer time) and event days. */

const moves = (minute: string, entries: number, exits = 0, repeats = 0): MinuteMoves => ({
  minute,
  entries,
  exits,
  repeats,
});

describe("the report's hours and days", () => {
  it('an hour of a zone half an hour off UTC starts at half past, UTC (Asia/Kolkata)', () => {
    assert.equal(hourStartOf('2026-06-01T17:10:00Z', 'Asia/Kolkata').toISOString(), '2026-06-01T16:30:00.000Z');
    assert.equal(hourStartOf('2026-06-01T17:30:00Z', 'Asia/Kolkata').toISOString(), '2026-06-01T17:30:00.000Z');
  });

  it('the hour an autumn night repeats is two hours, one per offset (Europe/Berlin, 25 October 2026)', () => {
    // 00:30Z is 02:30 summer time, 01:30Z is 02:30 winter time: the same wall clock, two hours.
    const hours = hoursOf([moves('2026-10-25T00:30', 2), moves('2026-10-25T01:30', 1, 1)], 'Europe/Berlin');
    assert.deepEqual(hours, [
      { hour: '2026-10-25T00:00:00Z', entries: 2, exits: 0, inside_at_end: 2 },
      { hour: '2026-10-25T01:00:00Z', entries: 1, exits: 1, inside_at_end: 2 },
    ]);
  });

  it('the hour after a spring gap starts at its end, and no hour is missing (Europe/Berlin, 29 March 2026)', () => {
    // 00:30Z is 01:30 winter time; at 01:00Z the clock jumps from 02:00 to 03:00; 02:10Z is 04:10.
    const hours = hoursOf([moves('2026-03-29T00:30', 1), moves('2026-03-29T02:10', 1)], 'Europe/Berlin');
    assert.deepEqual(
      hours.map((h) => [h.hour, h.entries, h.inside_at_end]),
      [
        ['2026-03-29T00:00:00Z', 1, 1],
        ['2026-03-29T01:00:00Z', 0, 1],
        ['2026-03-29T02:00:00Z', 1, 2],
      ],
    );
  });

  it('every instant falls in an hour that starts at most an hour before it, in any zone', () => {
    const zones = ['Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }),
        (zone, at) => {
          const start = hourStartOf(new Date(at), zone).getTime();
          assert.ok(start <= at && at - start < 3_600_000);
          assert.equal(hourStartOf(new Date(start), zone).getTime(), start);
        },
      ),
    );
  });

  it('re-entries of holders inside leave inside as it was; the peak is the first minute most were inside', () => {
    const minutes = [
      moves('2026-06-01T18:00', 3),
      moves('2026-06-01T18:05', 1, 0, 1),
      moves('2026-06-01T18:10', 0, 2),
      moves('2026-06-01T19:00', 2),
    ];
    assert.deepEqual(peakOf(minutes), { at: '2026-06-01T18:00:00Z', inside: 3 });
    assert.deepEqual(
      hoursOf(minutes, 'UTC').map((h) => h.inside_at_end),
      [1, 3],
    );
    assert.deepEqual(peakOf([]), { at: null, inside: 0 });
  });

  it("event days follow day_starts_at in the event's zone: after midnight belongs to the evening before", () => {
    const days = daysOf(
      [
        moves('2026-06-01T17:10', 1),
        moves('2026-06-01T18:40', 2),
        moves('2026-06-02T00:40', 0, 1),
        moves('2026-06-02T01:00', 1),
      ],
      { timezone: 'Asia/Kolkata', day_starts_at: '06:00' },
    );
    assert.deepEqual(days, [
      { date: '2026-06-01', entries: 3 },
      { date: '2026-06-02', entries: 1 },
    ]);
  });
});
