import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScanResult } from '@ticket-issuer/scanner';
import { formatWhen, setupUriFrom, verdictText } from '../../web/scan/verdict-text.ts';

const result = (verdict: ScanResult['verdict'], reason: string, ticket?: ScanResult['ticket']): ScanResult => ({
  verdict,
  reason,
  tid: 'tkt_1',
  source: 'issuer',
  idempotency_key: 'k',
  issuer_contact: 'answered',
  attention: false,
  checkin_texts: [],
  ...(ticket ? { ticket } : {}),
});

const ticket = (extra: Partial<NonNullable<ScanResult['ticket']>> = {}) => ({
  holder_name: 'Ada Lovelace',
  ticket_type: 'VIP',
  checked_in_at: null,
  checked_in_gate: null,
  ...extra,
});

describe('the verdict screen’s words', () => {
  it('says Admit with the holder and the type', () => {
    const text = verdictText(result('admit', 'valid', ticket()));
    assert.deepEqual([text.word, text.reason, text.who, text.tone], ['Admit', null, 'Ada Lovelace · VIP', 'admit']);
  });

  it('names each rejection in the contract’s words', () => {
    const words: Record<string, string> = {
      revoked: 'revoked',
      wrong_event: 'wrong event',
      expired: 'expired',
      invalid_signature: 'not valid',
      NOT_FOUND: 'not valid',
      FORBIDDEN: 'not admitted at this gate',
      ticket_type_not_admitted: 'not admitted at this gate',
      SOMETHING_NEW: 'not valid',
    };
    for (const [reason, said] of Object.entries(words)) {
      const text = verdictText(result('reject', reason));
      assert.equal(text.word, 'Reject');
      assert.equal(text.reason, said, reason);
    }
  });

  it('says when and at which gate a used ticket went in', () => {
    const now = new Date(2026, 10, 25, 20, 0);
    const at = new Date(2026, 10, 25, 18, 2).toISOString();
    const text = verdictText(
      result('reject', 'already_used', ticket({ checked_in_at: at, checked_in_gate: 'north' })),
      {
        now,
        locale: 'en-GB',
      },
    );
    assert.equal(text.reason, 'already used at 18:02 at gate north');
    assert.equal(formatWhen(new Date(2026, 10, 24, 9, 5).toISOString(), now, 'en-GB'), '24 Nov 09:05');
  });

  it('says where a ticket used online went in: the feed’s entry of that moment, else this device', () => {
    const now = new Date(2026, 10, 25, 20, 0);
    const at = new Date(2026, 10, 25, 18, 2).toISOString();
    const used = result('reject', 'already_used', ticket({ checked_in_at: at }));
    const context = { now, locale: 'en-GB' };
    assert.equal(verdictText(used, context).reason, 'already used at 18:02', 'nothing known: nothing made up');
    const place = { at, gate_id: 'south' };
    assert.equal(verdictText(used, { ...context, place }).reason, 'already used at 18:02 at gate south');
    const older = { at: new Date(2026, 10, 25, 17, 0).toISOString(), gate_id: 'south' };
    assert.equal(verdictText(used, { ...context, place: older }).reason, 'already used at 18:02', 'another entry');
    assert.equal(verdictText(used, { ...context, admittedHere: true }).reason, 'already used at 18:02 on this device');
    assert.equal(
      verdictText(used, { ...context, admittedHere: true, gate: 'north' }).reason,
      'already used at 18:02 at gate north',
    );
  });

  it('names the holder and the type of a ticket not admitted at this gate, and says what to do', () => {
    const known = verdictText(result('reject', 'ticket_type_not_admitted', ticket()), { gate: 'north' });
    assert.deepEqual(
      [known.word, known.reason, known.who, known.advice],
      [
        'Reject',
        'not admitted at this gate',
        'Ada Lovelace · VIP',
        'Not for gate north: send the holder to a gate that admits VIP.',
      ],
    );
    // With the event's gates known: the gates that let the type in, by id (never by their declared names).
    const gates = [
      { gate_id: 'north', name: 'North gate', admits: ['GA'] },
      { gate_id: 'south', name: 'South gate', admits: ['vip'] },
      { gate_id: 'west', name: '', admits: null },
      { gate_id: 'crew', name: 'Crew entrance', admits: ['Crew'] },
    ];
    assert.equal(
      verdictText(result('reject', 'ticket_type_not_admitted', ticket()), { gate: 'north', gates }).advice,
      'Not for gate north: send the holder to gate south or gate west.',
    );
    // A refusal whose answer carries no ticket: the type comes from the scanned code.
    const refused = verdictText(result('reject', 'ticket_type_not_admitted'), { gate: 'north', tokenType: 'Crew' });
    assert.equal(refused.who, 'Crew');
  });

  it('says a code that is no ticket is not a ticket, not that the device is offline', () => {
    const poster = verdictText({
      ...result('reject', 'invalid_signature'),
      tid: null,
      idempotency_key: null,
      source: 'offline',
    });
    assert.deepEqual(
      [poster.word, poster.reason, poster.source],
      ['Reject', 'not valid', 'This code is not a ticket.'],
    );
  });

  it('tells an offline verdict from the issuer’s', () => {
    assert.match(verdictText({ ...result('admit', 'valid'), source: 'offline' }).source, /offline/);
    assert.equal(verdictText(result('admit', 'valid')).who, null, 'no holder known: nothing made up');
  });
});

describe('the entry rules’ refusals and the notes for the gate', () => {
  const now = new Date(2026, 6, 3, 12, 0);
  const context = { now, locale: 'en-GB' };
  const refused = (reason: string, refusal: Record<string, unknown>): ScanResult => ({
    ...result('reject', reason, ticket()),
    refusal: { reason, ...refusal } as ScanResult['refusal'],
  });

  it('says not valid now, and when the ticket is valid', () => {
    const day = verdictText(
      refused('not_valid_now', { event_day: '2026-07-03', valid_from: null, valid_days: ['2026-07-04'], hours: null }),
      context,
    );
    assert.deepEqual(
      [day.word, day.reason, day.advice],
      ['Reject', 'not valid now', 'Valid on Sat 4 Jul only (today is Fri 3 Jul).'],
    );
    const hours = verdictText(
      refused('not_valid_now', { event_day: '2026-07-03', hours: { from: '20:00', until: '02:00' } }),
      context,
    );
    assert.equal(hours.advice, 'Entry from 20:00 to 02:00.');
    const early = verdictText(
      refused('not_valid_now', { valid_from: new Date(2026, 6, 3, 18, 30).toISOString() }),
      context,
    );
    assert.equal(early.advice, 'Valid from 18:30.');
    // Without days of its own, a ticket is valid on the event's days: said when today is not one of them.
    const eventDays = { first: '2026-07-04', last: '2026-07-05' };
    const before = verdictText(
      refused('not_valid_now', { event_day: '2026-07-03', valid_days: null, event_days: eventDays }),
      context,
    );
    assert.equal(before.advice, 'Valid on the event’s days only, Sat 4 Jul to Sun 5 Jul (today is Fri 3 Jul).');
    const inside = verdictText(
      refused('not_valid_now', {
        event_day: '2026-07-04',
        valid_days: null,
        event_days: eventDays,
        hours: { from: '20:00', until: '02:00' },
      }),
      context,
    );
    assert.equal(inside.advice, 'Entry from 20:00 to 02:00.');
  });

  it('says entry limit reached, and which limit', () => {
    const all = verdictText(
      refused('entry_limit_reached', { entries: 2, entries_today: 1, max_entries: 2, max_entries_per_day: null }),
      context,
    );
    assert.deepEqual([all.reason, all.advice], ['entry limit reached', 'Entries used: 2 of 2.']);
    const today = verdictText(
      refused('entry_limit_reached', { entries: 3, entries_today: 1, max_entries: 5, max_entries_per_day: 1 }),
      context,
    );
    assert.equal(today.advice, 'Entries today: 1 of 1.');
    const days = verdictText(
      refused('entry_limit_reached', {
        entries: 2,
        entries_today: 0,
        max_entries: null,
        max_entries_per_day: null,
        max_days: 2,
        days_used: 2,
      }),
      context,
    );
    assert.equal(days.advice, 'Days used: 2 of 2; today would be one more.');
  });

  it('says too soon, and from when the holder may come in again', () => {
    const soon = verdictText(
      refused('too_soon', {
        last_entry_at: new Date(2026, 6, 3, 11, 50).toISOString(),
        min_minutes_between_entries: 30,
        next_entry_at: new Date(2026, 6, 3, 12, 20).toISOString(),
      }),
      context,
    );
    assert.deepEqual([soon.reason, soon.advice], ['too soon', 'Next entry from 12:20 (last entry 11:50).']);
    // An issuer's refusal that names no details: the words alone.
    assert.deepEqual(
      [verdictText(result('reject', 'too_soon')).reason, verdictText(result('reject', 'too_soon')).advice],
      ['too soon', null],
    );
  });

  it('carries attention and the texts, on an admit as on a refusal', () => {
    const noted = {
      ...result('admit', 'valid', ticket()),
      attention: true,
      checkin_texts: ['Wristband: green', 'Wheelchair'],
    };
    const text = verdictText(noted);
    assert.deepEqual([text.attention, text.notes], [true, ['Wristband: green', 'Wheelchair']]);
    const plain = verdictText({ ...result('reject', 'already_used'), checkin_texts: ['Wristband: green'] });
    assert.deepEqual([plain.attention, plain.notes], [false, ['Wristband: green']]);
  });
});

describe('an exit’s words', () => {
  it('says Exit for a holder let out, Reject with not inside for one never let in', () => {
    assert.deepEqual(
      [verdictText(result('exit', 'checked_out', ticket())).word, verdictText(result('exit', 'checked_out')).reason],
      ['Exit', null],
    );
    const revoked = verdictText(result('exit', 'revoked'));
    assert.deepEqual([revoked.word, revoked.reason], ['Exit', 'revoked']);
    const notIn = verdictText(result('reject', 'not_inside'));
    assert.deepEqual([notIn.word, notIn.reason, notIn.tone], ['Reject', 'not inside', 'reject']);
  });

  it('says Already out, in amber, for a holder scanned out a second time', () => {
    const again = verdictText(result('reject', 'not_inside', ticket()), { wasInside: true });
    assert.deepEqual([again.word, again.tone, again.who], ['Already out', 'notice', 'Ada Lovelace · VIP']);
    assert.equal(verdictText(result('exit', 'checked_out')).tone, 'exit');
  });
});

describe('a setup code as typed or scanned', () => {
  const uri = 'ticket-issuer://enroll?iss=https%3A%2F%2Fgate.example&token=st_abc';
  it('takes the setup URI itself, or the web scanner link that carries it', () => {
    assert.equal(setupUriFrom(` ${uri} `), uri);
    assert.equal(setupUriFrom(`https://gate.example/scan/#setup=${encodeURIComponent(uri)}`), uri);
    assert.equal(setupUriFrom(`#setup=${encodeURIComponent(uri)}`), uri);
  });
});
