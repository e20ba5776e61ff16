/**
 * Entry rules per ticket type (days, hours, entry limits, re-entry, time between entries), one pure
 * implementation for the issuer's decision and a scanner's offline verdict. Each side gathers the
 * facts (the issuer inside the check-in's transaction, a device from its synced knowledge and its own
 * queue) and `judgeEntry` (`ticket-rules.ts`) applies these rules in the contract's order; the table
 * of cases (`entry-rule-cases.ts`) is their specification, and both sides are tested on it.
 */
import {
  type EventCalendar,
  type EventDays,
  eventDayOf,
  type Hours,
  withinEventDays,
  withinHours,
} from './event-days.ts';
import { ticketTypeKey } from './gates.ts';

/** How a holder may come in again: never, after an exit scan, or whenever (wristbands, no exit scans). */
export type ReentryMode = 'none' | 'after_exit' | 'any';

/** A ticket type's rules, as `PUT …/ticket-types/{ticket_type}` declares them (null: no such rule). */
export interface TicketTypeRules {
  ticket_type: string;
  valid_days: readonly string[] | null;
  hours: Hours | null;
  max_entries: number | null;
  max_entries_per_day: number | null;
  /**
   * The number of distinct event days on which the ticket may enter ("any 2 days of 3"): a first entry
   * on one day too many is refused; re-entries on a day already used never count against it.
   */
  max_days: number | null;
  /** Null: the event's `reentry` decides (`false` = `none`, `true` = `after_exit`). */
  reentry: ReentryMode | null;
  min_minutes_between_entries: number | null;
  attention: boolean;
  checkin_text: string | null;
}

/** The event's side of the rules: its calendar, its days and its re-entry setting. */
export interface EventRules extends EventCalendar {
  reentry: boolean;
  /** Holders still inside are counted out at the start of each event day (see auto-exit.ts); absent: off. */
  auto_exit?: boolean;
  /**
   * The days an event with an end runs on (`eventDaysOf`): a type without `valid_days` is valid on
   * these only. Null or absent: no date bounds the event (it has no `ends_at`).
   */
  event_days?: EventDays | null;
}

/** An event with no rules declared: UTC days from midnight, no re-entry. */
export const DEFAULT_EVENT_RULES: EventRules = { timezone: 'UTC', day_starts_at: '00:00', reentry: false };

/** The rules of a label that no declaration names: none at all. */
export const defaultTicketTypeRules = (ticketType: string): TicketTypeRules => ({
  ticket_type: ticketType,
  valid_days: null,
  hours: null,
  max_entries: null,
  max_entries_per_day: null,
  max_days: null,
  reentry: null,
  min_minutes_between_entries: null,
  attention: false,
  checkin_text: null,
});

/** The declared rules of a ticket's type (labels compared as gates compare them), or null. */
export function rulesFor(types: Iterable<TicketTypeRules>, ticketType: string): TicketTypeRules | null {
  const wanted = ticketTypeKey(ticketType);
  for (const type of types) if (ticketTypeKey(type.ticket_type) === wanted) return type;
  return null;
}

/** How a holder of this type may come in again. */
export function reentryMode(type: TicketTypeRules | null, event: Pick<EventRules, 'reentry'>): ReentryMode {
  return type?.reentry ?? (event.reentry ? 'after_exit' : 'none');
}

/** What the rules judge at a scan, besides the ticket's state: when, since when valid, earlier entries. */
export interface EntryTiming {
  /** The scan's time (`scanned_at`). */
  scannedAt: string;
  /** The ticket's `valid_from`, or null. */
  validFrom: string | null;
  /** The `scanned_at` of the ticket's entries so far (answered `valid`, not annulled), in any order. */
  entries: readonly string[];
}

/** Why the rules refuse an entry: the 403's `details` (the issuer adds the holder's name). */
export type RuleRefusal =
  | {
      reason: 'not_valid_now';
      event_day: string;
      valid_from: string | null;
      valid_days: readonly string[] | null;
      /** The event's days, which bound a type without `valid_days` (null: no date bounds the event). */
      event_days: EventDays | null;
      hours: Hours | null;
    }
  | {
      reason: 'entry_limit_reached';
      event_day: string;
      entries: number;
      entries_today: number;
      max_entries: number | null;
      max_entries_per_day: number | null;
      max_days: number | null;
      /** The distinct event days with an entry so far (this scan's not counted). */
      days_used: number;
    }
  | {
      reason: 'too_soon';
      last_entry_at: string;
      min_minutes_between_entries: number;
      next_entry_at: string;
    };

const ms = (instant: string): number => new Date(instant).getTime();

/**
 * Not valid now: before `valid_from`, on an event day not in `valid_days` (without them, not one of the
 * event's days, when it has an end), or outside `hours`.
 */
export function notValidNow(
  timing: EntryTiming,
  type: TicketTypeRules | null,
  event: Omit<EventRules, 'reentry'>,
): RuleRefusal | null {
  const eventDays = event.event_days ?? null;
  // The scan's event day reads the zone's clock: only when a day bounds the ticket, or to tell a refusal.
  const daysBound = type?.valid_days != null || eventDays !== null;
  const day = daysBound ? eventDayOf(timing.scannedAt, event) : null;
  const early = timing.validFrom !== null && ms(timing.scannedAt) < ms(timing.validFrom);
  const offDay =
    day !== null && (type?.valid_days != null ? !type.valid_days.includes(day) : !withinEventDays(day, eventDays));
  const offHours = type?.hours != null && !withinHours(timing.scannedAt, type.hours, event);
  if (!early && !offDay && !offHours) return null;
  return {
    reason: 'not_valid_now',
    event_day: day ?? eventDayOf(timing.scannedAt, event),
    valid_from: timing.validFrom,
    valid_days: type?.valid_days ?? null,
    event_days: eventDays === null ? null : { first: eventDays.first, last: eventDays.last },
    hours: type?.hours ?? null,
  };
}

/**
 * The entry limit: `max_entries` entries in all, `max_entries_per_day` on the scan's event day, or a first
 * entry on one day more than `max_days` (a day already used never counts again).
 */
export function entryLimitReached(
  timing: EntryTiming,
  type: TicketTypeRules | null,
  calendar: EventCalendar,
): RuleRefusal | null {
  const maxDays = type?.max_days ?? null;
  if (type === null || (type.max_entries === null && type.max_entries_per_day === null && maxDays === null))
    return null;
  const day = eventDayOf(timing.scannedAt, calendar);
  const days = timing.entries.map((entry) => eventDayOf(entry, calendar));
  const today = days.filter((entryDay) => entryDay === day).length;
  const daysUsed = new Set(days).size;
  const overall = type.max_entries !== null && timing.entries.length >= type.max_entries;
  const daily = type.max_entries_per_day !== null && today >= type.max_entries_per_day;
  const dayTooMany = maxDays !== null && today === 0 && daysUsed >= maxDays;
  if (!overall && !daily && !dayTooMany) return null;
  return {
    reason: 'entry_limit_reached',
    event_day: day,
    entries: timing.entries.length,
    entries_today: today,
    max_entries: type.max_entries,
    max_entries_per_day: type.max_entries_per_day,
    max_days: maxDays,
    days_used: daysUsed,
  };
}

/**
 * Too soon: fewer than `min_minutes_between_entries` since the ticket's last entry (the latest by
 * scan time; a scan made before it, uploaded late, is within the interval too).
 */
export function tooSoon(timing: EntryTiming, type: TicketTypeRules | null): RuleRefusal | null {
  const minutes = type?.min_minutes_between_entries ?? null;
  if (minutes === null || timing.entries.length === 0) return null;
  const last = timing.entries.reduce((a, b) => (ms(b) > ms(a) ? b : a));
  const next = ms(last) + minutes * 60_000;
  if (ms(timing.scannedAt) >= next) return null;
  return {
    reason: 'too_soon',
    last_entry_at: new Date(ms(last)).toISOString(),
    min_minutes_between_entries: minutes,
    next_entry_at: new Date(next).toISOString(),
  };
}

/** Notes shown at the gate: attention from the type or the ticket, the type's text then the ticket's. */
export interface GateNotes {
  attention: boolean;
  checkin_texts: string[];
}

export function gateNotes(
  type: Pick<TicketTypeRules, 'attention' | 'checkin_text'> | null,
  ticket: { attention: boolean; checkin_text: string | null },
): GateNotes {
  const texts = [type?.checkin_text ?? null, ticket.checkin_text].filter((t): t is string => t !== null && t !== '');
  return { attention: type?.attention === true || ticket.attention, checkin_texts: texts };
}
