import { type EventCalendar, eventDayOf, eventDayStart } from '@ticket-issuer/protocol';

const DAY = 86_400_000;
/** An event day is at most 25 hours long: entries further than two days away are on another day. */
const TWO_DAYS = 2 * DAY;
/** Event days remembered per calendar, and calendars remembered (an issuer serves a few events at once). */
const DAYS_KEPT = 8;
const CALENDARS_KEPT = 256;

/** A counted entry's event day, and whether it is the ticket's first counted entry of that day. */
export interface EntryDay {
  date: string;
  first: boolean;
}

interface DaySpan {
  date: string;
  from: number;
  until: number;
}

/**
 * The spans of the event days lately asked for, per calendar: reading a day in the zone takes a few
 * `Intl` readings, and a check-in asks for one inside the ticket's locks, so each day's span is read
 * once and an instant is then placed by comparing numbers.
 */
const spans = new Map<string, DaySpan[]>();

/** The calendar date after `date` ("YYYY-MM-DD"): dates, not instants, so no zone is involved. */
const nextDate = (date: string): string => new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);

/** The event day an instant falls in: the day whose start is the latest at or before it (`eventDayOf`). */
function dayAt(at: number, calendar: EventCalendar): string {
  const key = `${calendar.timezone} ${calendar.day_starts_at}`;
  let kept = spans.get(key);
  const known = kept?.find((span) => span.from <= at && at < span.until);
  if (known !== undefined) return known.date;
  const date = eventDayOf(new Date(at), calendar);
  const span = {
    date,
    from: eventDayStart(date, calendar).getTime(),
    until: eventDayStart(nextDate(date), calendar).getTime(),
  };
  if (kept === undefined) {
    if (spans.size >= CALENDARS_KEPT) spans.clear();
    spans.set(key, (kept = []));
  }
  kept.unshift(span);
  if (kept.length > DAYS_KEPT) kept.pop();
  return date;
}

/**
 * The event day of an entry scanned at `at`, and whether none of the ticket's other counted entries
 * (`entries`, their scan times) falls on it. Only entries near in time are placed in a day.
 */
export function entryDay(at: string, entries: readonly string[], calendar: EventCalendar): EntryDay {
  const atMs = Date.parse(at);
  const date = dayAt(atMs, calendar);
  const sameDay = (other: string) => {
    const otherMs = Date.parse(other);
    return Math.abs(otherMs - atMs) < TWO_DAYS && dayAt(otherMs, calendar) === date;
  };
  return { date, first: !entries.some(sameDay) };
}
