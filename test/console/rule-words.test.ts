import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

interface Rules {
  valid_days: string[] | null;
  hours: { from: string; until: string } | null;
  max_entries: number | null;
  max_entries_per_day: number | null;
  max_days: number | null;
  reentry: 'none' | 'after_exit' | 'any' | null;
  min_minutes_between_entries: number | null;
  attention: boolean;
  checkin_text: string | null;
}
interface RuleWordsModule {
  daysText: (days: string[] | null) => string;
  hoursText: (hours: Rules['hours']) => string;
  entriesText: (maxEntries: number | null, maxPerDay: number | null, maxDays?: number | null) => string;
  reentryText: (mode: Rules['reentry'], eventReentry: boolean) => string;
  gapText: (minutes: number | null) => string | null;
  ruleWords: (type: Rules, event: { reentry: boolean }) => string[];
  eventDayOf: (iso: string, timezone: string, dayStartsAt: string) => string;
  nextDay: (date: string, step?: number) => string;
  timeZones: () => string[];
}

// The console's browser module, loaded as it is served (a plain ES module, no build).
const modulePath = '../../console/js/rule-words.js';
const words = (await import(modulePath)) as RuleWordsModule;

const NO_RULES: Rules = {
  valid_days: null,
  hours: null,
  max_entries: null,
  max_entries_per_day: null,
  max_days: null,
  reentry: null,
  min_minutes_between_entries: null,
  attention: false,
  checkin_text: null,
};

describe('console rule words: a ticket type’s entry rules as an organizer reads them', () => {
  it('says the valid days: every day, one day only, several, a span of three or more, years when they differ', () => {
    assert.equal(words.daysText(null), 'Every day');
    assert.equal(words.daysText(['2026-06-06']), 'Sat 6 Jun only');
    assert.equal(words.daysText(['2026-06-07', '2026-06-05']), 'Fri 5 Jun, Sun 7 Jun');
    assert.equal(
      words.daysText(['2026-06-05', '2026-06-06', '2026-06-07', '2026-06-09']),
      'Fri 5 Jun – Sun 7 Jun, Tue 9 Jun',
    );
    assert.equal(words.daysText(['2026-12-31', '2027-01-01']), 'Thu 31 Dec 2026, Fri 1 Jan 2027');
  });

  it('says the hours, the limits, re-entry and the time between entries', () => {
    assert.equal(words.hoursText(null), 'All day');
    assert.equal(words.hoursText({ from: '10:00', until: '18:00' }), '10:00–18:00');
    assert.equal(words.entriesText(null, null), 'No entry limit');
    assert.equal(words.entriesText(2, null), '2 entries');
    assert.equal(words.entriesText(null, 1), '1 entry a day');
    assert.equal(words.entriesText(2, 1), '2 entries, 1 a day');
    assert.equal(words.entriesText(null, null, 2), 'Any 2 days');
    assert.equal(words.entriesText(null, null, 1), 'Any 1 day');
    assert.equal(words.entriesText(4, null, 2), '4 entries, any 2 days');
    assert.equal(words.entriesText(null, 1, 2), '1 entry a day, any 2 days');
    assert.equal(words.entriesText(4, 1, 2), '4 entries, 1 a day, any 2 days');
    assert.equal(words.reentryText('any', false), 're-entry: any time');
    assert.equal(words.reentryText('after_exit', false), 're-entry: after an exit');
    assert.equal(words.reentryText('none', true), 're-entry: none');
    assert.equal(words.reentryText(null, false), 're-entry: event default (none)');
    assert.equal(words.reentryText(null, true), 're-entry: event default (after an exit)');
    assert.equal(words.gapText(null), null);
    assert.equal(words.gapText(30), '30 min between entries');
    assert.equal(words.gapText(120), '2 h between entries');
    assert.equal(words.gapText(90), '1 h 30 min between entries');
  });

  it('lists every rule of a type in the order the gate judges them, the notes last', () => {
    assert.deepEqual(words.ruleWords(NO_RULES, { reentry: false }), [
      'Every day',
      'All day',
      'No entry limit',
      're-entry: event default (none)',
    ]);
    assert.deepEqual(
      words.ruleWords(
        {
          valid_days: ['2026-06-06'],
          hours: { from: '10:00', until: '18:00' },
          max_entries: 2,
          max_entries_per_day: 1,
          max_days: 2,
          reentry: 'any',
          min_minutes_between_entries: 30,
          attention: true,
          checkin_text: 'Hand out a wristband',
        },
        { reentry: false },
      ),
      [
        'Sat 6 Jun only',
        '10:00–18:00',
        '2 entries, 1 a day, any 2 days',
        're-entry: any time',
        '30 min between entries',
        'Attention at the gate',
        'Check-in text: Hand out a wristband',
      ],
    );
  });

  it('finds the event day of an instant in the event’s zone, a night before the day start in the day before', () => {
    // 2026-06-06T03:30Z is 05:30 in Berlin (summer time): before a 06:00 start, so still the 5th.
    assert.equal(words.eventDayOf('2026-06-06T03:30:00Z', 'Europe/Berlin', '06:00'), '2026-06-05');
    assert.equal(words.eventDayOf('2026-06-06T04:00:00Z', 'Europe/Berlin', '06:00'), '2026-06-06');
    assert.equal(words.eventDayOf('2026-06-06T23:30:00Z', 'UTC', '00:00'), '2026-06-06');
    assert.equal(words.eventDayOf('2026-06-06T23:30:00Z', 'Europe/Berlin', '00:00'), '2026-06-07');
    assert.equal(words.nextDay('2026-02-28'), '2026-03-01');
    assert.equal(words.nextDay('2026-03-01', -1), '2026-02-28');
  });

  it('offers the IANA zones, UTC among them', () => {
    const zones = words.timeZones();
    assert.ok(zones.includes('UTC'));
    assert.ok(zones.includes('Europe/Berlin'));
    assert.ok(zones.length > 300);
  });
});
