import {
  defaultTicketTypeRules,
  eventDaysOf,
  type Hours,
  hoursInOrder,
  isCalendarDate,
  isLocalTime,
  type ReentryMode,
  type RulesAnswer,
  type TicketTypeRules,
  ticketTypeKey,
} from '@ticket-issuer/protocol';
import type { EventRecord, Store, TicketTypeRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { type FieldProblem, IssuerError, invalidRequest } from './errors.ts';
import { requireEvent } from './events.ts';
import { checkinText, MAX_CHECKIN_TEXT } from './ticket-notes.ts';
import { gateView } from './gates.ts';
import { toStored } from './time.ts';

/** What `PUT …/ticket-types/{ticket_type}` may say; a field left out takes its default. */
export interface TicketTypeInput {
  valid_days?: string[] | null;
  hours?: Hours | null;
  max_entries?: number | null;
  max_entries_per_day?: number | null;
  max_days?: number | null;
  reentry?: ReentryMode | null;
  min_minutes_between_entries?: number | null;
  attention?: boolean;
  checkin_text?: string | null;
}

/** The largest count or number of minutes a rule takes (a limit, not a meaning: about two years of minutes). */
export const MAX_RULE_NUMBER = 1_000_000;
export const MAX_TICKET_TYPE = 100;
const REENTRY_MODES: readonly ReentryMode[] = ['none', 'after_exit', 'any'];

/** A ticket type as the admin API shows it: declared or only found on tickets, with its rules. */
export function ticketTypeView(rules: TicketTypeRules, declared: boolean) {
  return {
    ticket_type: rules.ticket_type,
    declared,
    valid_days: rules.valid_days === null ? null : [...rules.valid_days],
    hours: rules.hours === null ? null : { from: rules.hours.from, until: rules.hours.until },
    max_entries: rules.max_entries,
    max_entries_per_day: rules.max_entries_per_day,
    max_days: rules.max_days,
    reentry: rules.reentry,
    min_minutes_between_entries: rules.min_minutes_between_entries,
    attention: rules.attention,
    checkin_text: rules.checkin_text,
  };
}

/** A declared type's rules as a scanner receives them (`GET /api/v1/events/{eid}/rules`). */
function rulesView(rules: TicketTypeRules) {
  const { declared: _declared, ...view } = ticketTypeView(rules, true);
  return view;
}

const hasControlCharacter = (text: string): boolean =>
  [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_RULE_NUMBER;

/**
 * A type's rules from a declaration, checked against the event's calendar: every problem is named by
 * its field. The label loses its surrounding spaces; `valid_days` are kept in date order;
 * `checkin_text` is kept as a ticket's is (trimmed, blank is none).
 */
export function ticketTypeRules(
  label: string,
  input: TicketTypeInput,
  calendar: Pick<EventRecord, 'day_starts_at'>,
): TicketTypeRules {
  const problems: FieldProblem[] = [];
  const fail = (field: string, problem: string) => problems.push({ field, problem });
  const ticketType = label.trim();
  if (ticketType.length === 0 || ticketType.length > MAX_TICKET_TYPE || hasControlCharacter(ticketType))
    fail('ticket_type', `must be a ticket type of 1 to ${MAX_TICKET_TYPE} characters, without control characters`);
  const validDays = input.valid_days ?? null;
  if (validDays !== null) {
    if (!Array.isArray(validDays) || validDays.length === 0)
      fail('valid_days', 'must be null (every day) or a non-empty list of dates "YYYY-MM-DD"');
    else if (!validDays.every(isCalendarDate)) fail('valid_days', 'must hold dates "YYYY-MM-DD" that exist');
    else if (new Set(validDays).size !== validDays.length) fail('valid_days', 'must not name a date twice');
  }
  const hours = input.hours ?? null;
  if (hours !== null) {
    if (!isLocalTime(hours.from)) fail('hours.from', 'must be a local time "HH:MM" from 00:00 to 23:59');
    if (!isLocalTime(hours.until)) fail('hours.until', 'must be a local time "HH:MM" from 00:00 to 23:59');
    else if (isLocalTime(hours.from) && !hoursInOrder(hours, calendar))
      fail('hours', `from must come before until in the event day, which starts at ${calendar.day_starts_at}`);
  }
  for (const field of ['max_entries', 'max_entries_per_day', 'max_days', 'min_minutes_between_entries'] as const) {
    const value = input[field] ?? null;
    if (value !== null && !isCount(value)) fail(field, `must be null or a whole number from 1 to ${MAX_RULE_NUMBER}`);
  }
  const reentry = input.reentry ?? null;
  if (reentry !== null && !REENTRY_MODES.includes(reentry))
    fail('reentry', 'must be null, "none", "after_exit" or "any"');
  if (input.attention !== undefined && typeof input.attention !== 'boolean') fail('attention', 'must be true or false');
  const text = input.checkin_text ?? null;
  if (text !== null && (typeof text !== 'string' || text.length > MAX_CHECKIN_TEXT))
    fail('checkin_text', `must be null or text of at most ${MAX_CHECKIN_TEXT} characters`);
  if (problems.length > 0)
    throw invalidRequest(`the ticket type's rules are not valid: ${problems[0]!.field}`, problems);
  return {
    ticket_type: ticketType,
    valid_days: validDays === null ? null : [...validDays].sort(),
    hours: hours === null ? null : { from: hours.from, until: hours.until },
    max_entries: input.max_entries ?? null,
    max_entries_per_day: input.max_entries_per_day ?? null,
    max_days: input.max_days ?? null,
    reentry,
    min_minutes_between_entries: input.min_minutes_between_entries ?? null,
    attention: input.attention ?? false,
    checkin_text: checkinText(text),
  };
}

/** Declares a ticket type of an existing event, or replaces the declaration of that label (any spelling). */
export async function putTicketType(
  store: Store,
  clock: Clock,
  eid: string,
  label: string,
  input: TicketTypeInput,
): Promise<TicketTypeRecord> {
  const event = await requireEvent(store, eid);
  const record: TicketTypeRecord = {
    ...ticketTypeRules(label, input, event),
    eid,
    updated_at: toStored(clock.now()),
  };
  await store.events.putTicketType(record);
  return record;
}

/** Removes a ticket type's declaration; NOT_FOUND when the event is unknown or the label not declared. */
export async function deleteTicketType(store: Store, eid: string, label: string): Promise<void> {
  await requireEvent(store, eid);
  if (!(await store.events.deleteTicketType(eid, ticketTypeKey(label))))
    throw new IssuerError('NOT_FOUND', 'no ticket type of this event is declared with this label');
}

/**
 * Every declared type, and every other label found on the event's tickets with the defaults (one per
 * label as rules compare them: `VIP` and `vip ` are one type), in the order of their keys.
 */
export async function listTicketTypes(store: Store, eid: string) {
  await requireEvent(store, eid);
  const [declared, labels] = await Promise.all([store.events.listTicketTypes(eid), store.events.listTicketLabels(eid)]);
  const seen = new Set(declared.map((type) => ticketTypeKey(type.ticket_type)));
  const found: TicketTypeRules[] = [];
  for (const label of [...labels].sort(byCodeUnits)) {
    const key = ticketTypeKey(label);
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(defaultTicketTypeRules(label));
  }
  const views = [...declared.map((t) => ticketTypeView(t, true)), ...found.map((t) => ticketTypeView(t, false))];
  return views.sort(
    (a, b) =>
      byCodeUnits(ticketTypeKey(a.ticket_type), ticketTypeKey(b.ticket_type)) ||
      byCodeUnits(a.ticket_type, b.ticket_type),
  );
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** What a scanner needs to judge entries offline: gates, the event's calendar, days and re-entry, declared types. */
export async function scannerRules(store: Store, eid: string) {
  const [event, gates, types] = await Promise.all([
    requireEvent(store, eid),
    store.events.listGates(eid),
    store.events.listTicketTypes(eid),
  ]);
  return {
    gates: gates.map(gateView),
    reentry: event.reentry,
    timezone: event.timezone,
    day_starts_at: event.day_starts_at,
    auto_exit: event.auto_exit,
    event_days: eventDaysOf(event.event_date, event.ends_at, event),
    ticket_types: types.map(rulesView),
  } satisfies RulesAnswer;
}
