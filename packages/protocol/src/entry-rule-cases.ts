import { defaultTicketTypeRules, type EventRules, type TicketTypeRules } from './entry-rules.ts';
import type { EntryOutcome, HolderState } from './ticket-rules.ts';
import { DAY_RULE_CASES } from './day-rule-cases.ts';
import { CASE_GATES, CASE_TICKET_TYPE } from './verdict-cases.ts';

/**
 * One situation of the entry rules and the outcome it must give. The issuer's decision (inside the
 * check-in's transaction) and the scanner's offline verdict are both tested on this one table: days
 * across daylight saving changes, a day starting at 06:00, hours, `valid_from`, limits, re-entry
 * modes and the order of judgement. Instants are UTC; the comments give the event's local time.
 */
export interface EntryRuleCase {
  name: string;
  event: EventRules;
  /** The declared rules of the ticket's type (`CASE_TICKET_TYPE`), or null when none is declared. */
  type: Partial<Omit<TicketTypeRules, 'ticket_type'>> | null;
  /** The label the declaration uses (default: the ticket's own). */
  typeLabel?: string;
  validFrom?: string | null;
  holder: HolderState;
  /** The `scanned_at` of the ticket's entries so far. */
  entries?: string[];
  scannedAt: string;
  revoked?: boolean;
  expired?: boolean;
  gate?: keyof typeof CASE_GATES;
  outcome: EntryOutcome;
}

/** The declared rules a case describes, complete (null: no declaration). */
export function caseTypeRules(c: EntryRuleCase): TicketTypeRules | null {
  if (c.type === null) return null;
  return { ...defaultTicketTypeRules(c.typeLabel ?? CASE_TICKET_TYPE), ...c.type };
}

const berlin: EventRules = { timezone: 'Europe/Berlin', day_starts_at: '00:00', reentry: false };
const festival: EventRules = { ...berlin, day_starts_at: '06:00' };
const utc: EventRules = { timezone: 'UTC', day_starts_at: '00:00', reentry: false };

const CASES: readonly EntryRuleCase[] = [
  {
    name: 'no type declared: admitted',
    event: berlin,
    type: null,
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'valid',
  },
  // Days (Friday 3 July, Saturday 4 July 2026; Berlin is UTC+2 in summer).
  {
    name: 'a Friday ticket on Friday',
    event: berlin,
    type: { valid_days: ['2026-07-03'] },
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z', // Fri 10:00
    outcome: 'valid',
  },
  {
    name: 'a Saturday ticket on Friday is not valid now',
    event: berlin,
    type: { valid_days: ['2026-07-04'] },
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'not_valid_now',
  },
  {
    name: 'a day starting at 06:00: 02:00 on Saturday is still Friday',
    event: festival,
    type: { valid_days: ['2026-07-03'] },
    holder: 'unused',
    scannedAt: '2026-07-04T00:00:00Z', // Sat 02:00
    outcome: 'valid',
  },
  {
    name: 'a day starting at 06:00: a Saturday ticket at 05:59 on Saturday is not valid yet',
    event: festival,
    type: { valid_days: ['2026-07-04'] },
    holder: 'unused',
    scannedAt: '2026-07-04T03:59:00Z', // Sat 05:59
    outcome: 'not_valid_now',
  },
  {
    name: 'a day starting at 06:00: a Saturday ticket at 06:00 on Saturday',
    event: festival,
    type: { valid_days: ['2026-07-04'] },
    holder: 'unused',
    scannedAt: '2026-07-04T04:00:00Z', // Sat 06:00
    outcome: 'valid',
  },
  // Daylight saving: Berlin goes to UTC+2 on 29 March 2026 and back to UTC+1 on 25 October 2026.
  {
    name: 'just after midnight on the first summer-time day belongs to that day',
    event: berlin,
    type: { valid_days: ['2026-03-29'] },
    holder: 'unused',
    scannedAt: '2026-03-28T23:30:00Z', // Sun 29 March 00:30 (UTC+1)
    outcome: 'valid',
  },
  {
    name: 'just after midnight after the change belongs to the next day',
    event: berlin,
    type: { valid_days: ['2026-03-29'] },
    holder: 'unused',
    scannedAt: '2026-03-29T22:30:00Z', // Mon 30 March 00:30 (UTC+2): a fixed +1 h would say Sunday
    outcome: 'not_valid_now',
  },
  {
    name: 'just after midnight on the last summer-time day belongs to that day',
    event: berlin,
    type: { valid_days: ['2026-10-25'] },
    holder: 'unused',
    scannedAt: '2026-10-24T22:30:00Z', // Sun 25 October 00:30 (UTC+2): a fixed +1 h would say Saturday
    outcome: 'valid',
  },
  {
    name: 'a day starting at 06:00 across the autumn change',
    event: festival,
    type: { valid_days: ['2026-10-24'] },
    holder: 'unused',
    scannedAt: '2026-10-25T04:30:00Z', // Sun 05:30 (UTC+1): still Saturday's day
    outcome: 'valid',
  },
  // Hours: `from` is inside, `until` is not.
  {
    name: 'a scan at the opening time is inside the hours',
    event: berlin,
    type: { hours: { from: '10:00', until: '18:00' } },
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z', // 10:00
    outcome: 'valid',
  },
  {
    name: 'a scan a minute before opening',
    event: berlin,
    type: { hours: { from: '10:00', until: '18:00' } },
    holder: 'unused',
    scannedAt: '2026-07-03T07:59:00Z', // 09:59
    outcome: 'not_valid_now',
  },
  {
    name: 'a scan at the closing time is outside the hours',
    event: berlin,
    type: { hours: { from: '10:00', until: '18:00' } },
    holder: 'unused',
    scannedAt: '2026-07-03T16:00:00Z', // 18:00
    outcome: 'not_valid_now',
  },
  {
    name: 'night hours within a day starting at 06:00: 01:30 is inside 20:00-02:00',
    event: festival,
    type: { hours: { from: '20:00', until: '02:00' } },
    holder: 'unused',
    scannedAt: '2026-07-03T23:30:00Z', // Sat 01:30
    outcome: 'valid',
  },
  {
    name: 'night hours within a day starting at 06:00: 02:00 is outside 20:00-02:00',
    event: festival,
    type: { hours: { from: '20:00', until: '02:00' } },
    holder: 'unused',
    scannedAt: '2026-07-04T00:00:00Z', // Sat 02:00
    outcome: 'not_valid_now',
  },
  // valid_from, with or without a declared type.
  {
    name: 'before the ticket is valid from',
    event: utc,
    type: null,
    validFrom: '2026-07-03T12:00:00Z',
    holder: 'unused',
    scannedAt: '2026-07-03T11:59:59Z',
    outcome: 'not_valid_now',
  },
  {
    name: 'at the ticket’s valid-from instant',
    event: utc,
    type: null,
    validFrom: '2026-07-03T12:00:00Z',
    holder: 'unused',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  // Re-entry modes.
  {
    name: 'the event’s re-entry off: out stays out',
    event: utc,
    type: null,
    holder: 'out',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'already_used',
  },
  {
    name: 'the event’s re-entry on: out comes in again',
    event: { ...utc, reentry: true },
    type: { reentry: null },
    holder: 'out',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  {
    name: 'the type’s none outranks the event’s re-entry',
    event: { ...utc, reentry: true },
    type: { reentry: 'none' },
    holder: 'out',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'already_used',
  },
  {
    name: 'after_exit on the type, the event without re-entry: out comes in',
    event: utc,
    type: { reentry: 'after_exit' },
    holder: 'out',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  {
    name: 'after_exit: a holder inside is already in',
    event: utc,
    type: { reentry: 'after_exit' },
    holder: 'inside',
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'already_used',
  },
  {
    name: 'any: a wristband inside comes in again',
    event: utc,
    type: { reentry: 'any' },
    holder: 'inside',
    entries: ['2026-07-03T10:00:00Z'],
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  // Limits.
  {
    name: 'max_entries 2 after one entry',
    event: utc,
    type: { reentry: 'any', max_entries: 2 },
    holder: 'inside',
    entries: ['2026-07-03T10:00:00Z'],
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  {
    name: 'max_entries 2 after two entries',
    event: utc,
    type: { reentry: 'any', max_entries: 2 },
    holder: 'inside',
    entries: ['2026-07-03T10:00:00Z', '2026-07-03T11:00:00Z'],
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'entry_limit_reached',
  },
  {
    name: 'one entry per day: the next day is a new day',
    event: festival,
    type: { reentry: 'after_exit', max_entries_per_day: 1 },
    holder: 'out',
    entries: ['2026-07-03T20:00:00Z'], // Fri 22:00
    scannedAt: '2026-07-04T04:00:00Z', // Sat 06:00
    outcome: 'valid',
  },
  {
    name: 'one entry per day: after midnight is the same event day',
    event: festival,
    type: { reentry: 'after_exit', max_entries_per_day: 1 },
    holder: 'out',
    entries: ['2026-07-03T20:00:00Z'], // Fri 22:00
    scannedAt: '2026-07-04T01:00:00Z', // Sat 03:00, Friday's day
    outcome: 'entry_limit_reached',
  },
  // Too soon.
  {
    name: 'ten minutes after the last entry with 30 between',
    event: utc,
    type: { reentry: 'any', min_minutes_between_entries: 30 },
    holder: 'inside',
    entries: ['2026-07-03T09:00:00Z', '2026-07-03T11:50:00Z'],
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'too_soon',
  },
  {
    name: 'thirty minutes after the last entry with 30 between',
    event: utc,
    type: { reentry: 'any', min_minutes_between_entries: 30 },
    holder: 'inside',
    entries: ['2026-07-03T11:30:00Z', '2026-07-03T09:00:00Z'],
    scannedAt: '2026-07-03T12:00:00Z',
    outcome: 'valid',
  },
  // Labels compare as at a gate: ignoring case and surrounding spaces.
  {
    name: 'a declaration under another spelling of the label applies',
    event: berlin,
    type: { valid_days: ['2026-07-04'] },
    typeLabel: ' ga ',
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'not_valid_now',
  },
  // The order of judgement.
  {
    name: 'revocation outranks not valid now',
    event: berlin,
    type: { valid_days: ['2026-07-04'] },
    revoked: true,
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'revoked',
  },
  {
    name: 'the gate outranks not valid now',
    event: berlin,
    type: { valid_days: ['2026-07-04'] },
    gate: 'refuses',
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'ticket_type_not_admitted',
  },
  {
    name: 'not valid now outranks use',
    event: berlin,
    type: { valid_days: ['2026-07-04'] },
    holder: 'inside',
    entries: ['2026-07-03T07:00:00Z'],
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'not_valid_now',
  },
  {
    name: 'use outranks the entry limit',
    event: utc,
    type: { reentry: 'after_exit', max_entries: 1 },
    holder: 'inside',
    entries: ['2026-07-03T07:00:00Z'],
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'already_used',
  },
  {
    name: 'the entry limit outranks too soon',
    event: utc,
    type: { reentry: 'any', max_entries: 1, min_minutes_between_entries: 60 },
    holder: 'inside',
    entries: ['2026-07-03T07:50:00Z'],
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'entry_limit_reached',
  },
  {
    name: 'too soon outranks expiry',
    event: utc,
    type: { reentry: 'any', min_minutes_between_entries: 60 },
    holder: 'inside',
    entries: ['2026-07-03T07:50:00Z'],
    expired: true,
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'too_soon',
  },
  {
    name: 'not valid now outranks expiry',
    event: utc,
    type: null,
    validFrom: '2026-07-04T00:00:00Z',
    expired: true,
    holder: 'unused',
    scannedAt: '2026-07-03T08:00:00Z',
    outcome: 'not_valid_now',
  },
];

/** Every case: the ones above, and those of the event's days (`day-rule-cases.ts`). */
export const ENTRY_RULE_CASES: readonly EntryRuleCase[] = [...CASES, ...DAY_RULE_CASES];
