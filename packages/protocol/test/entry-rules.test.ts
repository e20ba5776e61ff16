import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CASE_GATES,
  CASE_TICKET_TYPE,
  caseTypeRules,
  ENTRY_RULE_CASES,
  eventDayOf,
  eventDayStart,
  gateNotes,
  hoursInOrder,
  isCalendarDate,
  isKnownTimezone,
  isLocalTime,
  judgeEntry,
} from '../src/index.ts';

describe('the entry rules on the table of cases shared with the issuer and the scanners', () => {
  for (const c of ENTRY_RULE_CASES) {
    it(`${c.name}: ${c.outcome}`, () => {
      const judged = judgeEntry(
        {
          signatureValid: true,
          sameEvent: true,
          revoked: c.revoked === true,
          holder: c.holder,
          expired: c.expired === true,
          ticketType: CASE_TICKET_TYPE,
        },
        { scannedAt: c.scannedAt, validFrom: c.validFrom ?? null, entries: c.entries ?? [] },
        { gate: CASE_GATES[c.gate ?? 'open'], event: c.event, type: caseTypeRules(c) },
      );
      assert.equal(judged.outcome, c.outcome);
      const refusedByRules = ['not_valid_now', 'entry_limit_reached', 'too_soon'].includes(c.outcome);
      assert.equal(judged.refusal?.reason ?? null, refusedByRules ? c.outcome : null);
    });
  }
});

describe('event days', () => {
  const berlin = { timezone: 'Europe/Berlin', day_starts_at: '06:00' };

  it('start at the local day start, whatever the offset of the season', () => {
    assert.equal(eventDayStart('2026-07-03', berlin).toISOString(), '2026-07-03T04:00:00.000Z');
    assert.equal(eventDayStart('2026-01-09', berlin).toISOString(), '2026-01-09T05:00:00.000Z');
    // The day of the spring change starts before it (UTC+1), the next one after it (UTC+2).
    assert.equal(eventDayStart('2026-03-29', berlin).toISOString(), '2026-03-29T04:00:00.000Z');
    assert.equal(eventDayStart('2026-03-28', berlin).toISOString(), '2026-03-28T05:00:00.000Z');
  });

  it('an instant belongs to the day whose start it follows', () => {
    for (const day of ['2026-03-28', '2026-03-29', '2026-10-24', '2026-10-25', '2026-12-31']) {
      const start = eventDayStart(day, berlin);
      assert.equal(eventDayOf(start, berlin), day);
      assert.notEqual(eventDayOf(new Date(start.getTime() - 1000), berlin), day);
    }
  });

  it('a day start inside a spring-forward gap moves to the first instant after it', () => {
    const start = eventDayStart('2026-03-29', { timezone: 'Europe/Berlin', day_starts_at: '02:30' });
    assert.equal(start.toISOString(), '2026-03-29T01:00:00.000Z'); // 03:00 (UTC+2)
    assert.equal(eventDayOf(start, { timezone: 'Europe/Berlin', day_starts_at: '02:30' }), '2026-03-29');
  });

  it('validates zones, local times, dates and the order of hours', () => {
    assert.equal(isKnownTimezone('Europe/Berlin'), true);
    assert.equal(isKnownTimezone('UTC'), true);
    assert.equal(isKnownTimezone('Mars/Olympus'), false);
    assert.equal(isKnownTimezone(''), false);
    assert.equal(isLocalTime('06:00'), true);
    assert.equal(isLocalTime('24:00'), false);
    assert.equal(isLocalTime('6:00'), false);
    assert.equal(isCalendarDate('2026-02-29'), false);
    assert.equal(isCalendarDate('2028-02-29'), true);
    assert.equal(hoursInOrder({ from: '20:00', until: '02:00' }, { day_starts_at: '06:00' }), true);
    assert.equal(hoursInOrder({ from: '20:00', until: '02:00' }, { day_starts_at: '00:00' }), false);
    assert.equal(hoursInOrder({ from: '10:00', until: '10:00' }, { day_starts_at: '00:00' }), false);
  });
});

describe('notes at the gate', () => {
  it('attention from the type or the ticket; the type’s text, then the ticket’s', () => {
    assert.deepEqual(
      gateNotes({ attention: false, checkin_text: 'Wristband' }, { attention: true, checkin_text: 'Wheelchair' }),
      {
        attention: true,
        checkin_texts: ['Wristband', 'Wheelchair'],
      },
    );
    assert.deepEqual(gateNotes(null, { attention: false, checkin_text: null }), {
      attention: false,
      checkin_texts: [],
    });
  });
});
