import assert from 'node:assert/strict';
import { test } from 'node:test';
import { human } from '../src/cli/format.ts';
import type { ScanResult } from '../src/scan-result.ts';

const result = (verdict: ScanResult['verdict'], reason: string): ScanResult =>
  ({
    verdict,
    reason,
    tid: '01J0000000000000000000TID1',
    source: 'issuer',
    synced: true,
    attention: false,
    checkin_texts: [],
  }) as unknown as ScanResult;

test('the human scan line keeps the ticket id in one column whatever the reason, the longest included', () => {
  const lines = [
    human.scan(result('admit', 'valid')),
    human.scan(result('reject', 'already_checked_in')),
    human.scan(result('reject', 'entry_limit_reached')),
  ];
  const columns = lines.map((line) => line.indexOf('01J0000000000000000000TID1'));
  assert.ok(
    columns.every((column) => column === columns[0]),
    lines.join('\n'),
  );
  assert.match(lines[2]!, /^REJECT {2}entry_limit_reached {2}01J/);
});

test('a refusal outside the event’s days names them; one inside them (refused for its hours) does not', () => {
  const refused = (refusal: Record<string, unknown>) =>
    human.scan({ ...result('reject', 'not_valid_now'), refusal } as unknown as ScanResult);
  const eventDays = { first: '2026-06-05', last: '2026-06-07' };
  const before = { reason: 'not_valid_now', event_day: '2026-06-04', valid_days: null, event_days: eventDays };
  assert.match(
    refused(before),
    /not valid now; today is 2026-06-04; valid on the event's days, 2026-06-05 to 2026-06-07/,
  );
  const hours = { ...before, event_day: '2026-06-06', hours: { from: '10:00', until: '18:00' } };
  assert.doesNotMatch(refused(hours), /event's days/);
  assert.match(refused(hours), /valid 10:00-18:00 local time/);
});

test('a refusal for one day too many says how many days were used', () => {
  const refusal = {
    reason: 'entry_limit_reached',
    event_day: '2026-06-07',
    entries: 2,
    entries_today: 0,
    max_entries: null,
    max_entries_per_day: null,
    max_days: 2,
    days_used: 2,
  };
  const line = human.scan({ ...result('reject', 'entry_limit_reached'), refusal } as unknown as ScanResult);
  assert.match(line, /entry limit reached; 2 of 2 days used/);
});

test('the human line names the holder where the device knows it', () => {
  const named = { ...result('admit', 'valid'), ticket: { holder_name: 'Ada Lovelace', ticket_type: 'VIP' } };
  assert.match(human.scan(named as unknown as ScanResult), /^ADMIT {3}valid {16}01J\S+ {2}Ada Lovelace {2}\(issuer\)$/);
});

test('already_used says when and at which gate the ticket went in', () => {
  const used = {
    ...result('reject', 'already_used'),
    ticket: {
      holder_name: 'Ada Lovelace',
      ticket_type: 'VIP',
      checked_in_at: '2026-07-03T10:30:00.000Z',
      checked_in_gate: 'main',
    },
  } as unknown as ScanResult;
  assert.match(human.scan(used), /Ada Lovelace {2}\(issuer\) {2}used 2026-07-03T10:30:00Z at gate main$/);
});

test('a refusal at this gate says where to go, by gate id', () => {
  const gates = [
    { gate_id: 'main', name: 'Main door', admits: null },
    { gate_id: 'vip', name: 'VIP lounge', admits: ['VIP'] },
    { gate_id: 'north', name: 'North door', admits: ['General'] },
  ];
  const refused = {
    ...result('reject', 'ticket_type_not_admitted'),
    ticket: { holder_name: 'Ada Lovelace', ticket_type: 'VIP' },
  } as unknown as ScanResult;
  assert.match(human.scan(refused, { gates, gate: 'north' }), /not for gate north: go to gate main or gate vip$/);
  const unknownType = { ...result('reject', 'ticket_type_not_admitted') } as unknown as ScanResult;
  assert.match(
    human.scan(unknownType, { gates, gate: 'north' }),
    /not for gate north: go to a gate that admits this ticket$/,
  );
});
