import type { EventRules } from './entry-rules.ts';
import type { EntryRuleCase } from './entry-rule-cases.ts';

/**
 * The cases of the rules that count event days (part of `ENTRY_RULE_CASES`): an event with an end bounds
 * every type without `valid_days` by its days, and `max_days` lets a ticket in on that many distinct
 * days. The event runs Friday 3 to Sunday 5 July 2026 in Berlin (UTC+2); comments give local times.
 */
const weekend: EventRules = {
  timezone: 'Europe/Berlin',
  day_starts_at: '00:00',
  reentry: false,
  event_days: { first: '2026-07-03', last: '2026-07-05' },
};
const nights: EventRules = { ...weekend, day_starts_at: '06:00' };
const unbounded: EventRules = { ...weekend, event_days: null };

export const DAY_RULE_CASES: readonly EntryRuleCase[] = [
  // The event's days bound a type without valid_days.
  {
    name: 'an event with an end: a ticket of no declared type on one of its days',
    event: weekend,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-04T10:00:00Z', // Sat 12:00
    outcome: 'valid',
  },
  {
    name: 'an event with an end: a ticket of no declared type the day before its first day',
    event: weekend,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-02T21:59:00Z', // Thu 23:59
    outcome: 'not_valid_now',
  },
  {
    name: 'an event with an end: its first day starts at local midnight, not UTC’s',
    event: weekend,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-02T22:00:00Z', // Fri 00:00
    outcome: 'valid',
  },
  {
    name: 'an event with an end: a declared type without valid_days the day after its last day',
    event: weekend,
    type: { max_entries: 5 },
    holder: 'unused',
    scannedAt: '2026-07-06T08:00:00Z', // Mon 10:00
    outcome: 'not_valid_now',
  },
  {
    name: 'an event with an end, days starting at 06:00: 05:00 on the Monday is still its last day',
    event: nights,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-06T03:00:00Z', // Mon 05:00, Sunday's day
    outcome: 'valid',
  },
  {
    name: 'an event with an end, days starting at 06:00: 06:00 on the Monday is past its last day',
    event: nights,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-06T04:00:00Z', // Mon 06:00
    outcome: 'not_valid_now',
  },
  {
    name: 'a type’s own valid_days apply, even beyond the event’s days',
    event: weekend,
    type: { valid_days: ['2026-07-06'] },
    holder: 'unused',
    scannedAt: '2026-07-06T08:00:00Z', // Mon 10:00
    outcome: 'valid',
  },
  {
    name: 'an event without an end: no date bounds a type without valid_days',
    event: unbounded,
    type: null,
    holder: 'unused',
    scannedAt: '2026-08-01T08:00:00Z',
    outcome: 'valid',
  },
  {
    name: 'outside the event’s days outranks use',
    event: weekend,
    type: { reentry: 'after_exit' },
    holder: 'inside',
    entries: ['2026-07-05T20:00:00Z'], // Sun 22:00
    scannedAt: '2026-07-05T22:30:00Z', // Mon 00:30
    outcome: 'not_valid_now',
  },
  // max_days: distinct event days with an entry.
  {
    name: 'any 2 days: a first entry on a second day',
    event: weekend,
    type: { reentry: 'after_exit', max_days: 2 },
    holder: 'out',
    entries: ['2026-07-03T16:00:00Z'], // Fri 18:00
    scannedAt: '2026-07-04T16:00:00Z', // Sat 18:00
    outcome: 'valid',
  },
  {
    name: 'any 2 days: a first entry on a third day is one day too many',
    event: weekend,
    type: { reentry: 'after_exit', max_days: 2 },
    holder: 'out',
    entries: ['2026-07-03T16:00:00Z', '2026-07-04T16:00:00Z'], // Fri, Sat
    scannedAt: '2026-07-05T16:00:00Z', // Sun 18:00
    outcome: 'entry_limit_reached',
  },
  {
    name: 'any 2 days: a re-entry on a day already used does not count against them',
    event: weekend,
    type: { reentry: 'after_exit', max_days: 2 },
    holder: 'out',
    entries: ['2026-07-03T16:00:00Z', '2026-07-04T10:00:00Z'], // Fri, Sat 12:00
    scannedAt: '2026-07-04T16:00:00Z', // Sat 18:00
    outcome: 'valid',
  },
  {
    name: 'any 2 days: several entries on one day are one day',
    event: weekend,
    type: { reentry: 'any', max_days: 2 },
    holder: 'inside',
    entries: ['2026-07-03T08:00:00Z', '2026-07-03T12:00:00Z', '2026-07-03T18:00:00Z'], // Fri
    scannedAt: '2026-07-05T08:00:00Z', // Sun 10:00
    outcome: 'valid',
  },
  {
    name: 'one day, days starting at 06:00: 03:00 after the night is the same day',
    event: nights,
    type: { reentry: 'after_exit', max_days: 1 },
    holder: 'out',
    entries: ['2026-07-03T20:00:00Z'], // Fri 22:00
    scannedAt: '2026-07-04T01:00:00Z', // Sat 03:00, Friday's day
    outcome: 'valid',
  },
  {
    name: 'one day, days starting at 06:00: 06:00 the next morning is another day',
    event: nights,
    type: { reentry: 'after_exit', max_days: 1 },
    holder: 'out',
    entries: ['2026-07-03T20:00:00Z'], // Fri 22:00
    scannedAt: '2026-07-04T04:00:00Z', // Sat 06:00
    outcome: 'entry_limit_reached',
  },
  {
    name: 'max_days and one entry a day: the day’s limit refuses on a day already used',
    event: weekend,
    type: { reentry: 'after_exit', max_days: 2, max_entries_per_day: 1 },
    holder: 'out',
    entries: ['2026-07-03T16:00:00Z'], // Fri 18:00
    scannedAt: '2026-07-03T20:00:00Z', // Fri 22:00
    outcome: 'entry_limit_reached',
  },
  {
    name: 'max_days outranks too soon',
    event: weekend,
    type: { reentry: 'any', max_days: 1, min_minutes_between_entries: 60 },
    holder: 'inside',
    entries: ['2026-07-03T21:50:00Z'], // Fri 23:50
    scannedAt: '2026-07-03T22:10:00Z', // Sat 00:10
    outcome: 'entry_limit_reached',
  },
];
