/**
 * Event days, computed in one place for the issuer and every scanner. An event day runs from the
 * event's `day_starts_at` (local wall time in its `timezone`) to the same local time the next day, and
 * its date is the local date at its start: with a day starting at 06:00, 02:00 on Saturday belongs to
 * Friday. Days are total and monotonic in every zone: each instant belongs to exactly one event day,
 * and days never overlap or go back. A day starts at the first instant the zone's wall clock reads its
 * `day_starts_at` or later (`zone-clock.ts`): a start the zone repeats (autumn) is its first occurrence,
 * one it skips (spring) the first instant after the gap.
 */
import { BoundedMap } from './bounded-map.ts';
import { firstInstantAtOrAfter, formatterFor, spelledZone, wallClockOf } from './zone-clock.ts';

/** An event's calendar: its zone (IANA name) and the local time its days start at ("HH:MM"). */
export interface EventCalendar {
  timezone: string;
  day_starts_at: string;
}

/** The first and the last event day an event runs on ("YYYY-MM-DD" each). */
export interface EventDays {
  first: string;
  last: string;
}

/** A `from`–`until` window of local times within an event day. */
export interface Hours {
  from: string;
  until: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const MINUTES_PER_DAY = 24 * 60;
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `timezone` is a zone this platform knows (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isKnownTimezone(timezone: string): boolean {
  if (typeof timezone !== 'string' || timezone.length === 0 || timezone.length > 64) return false;
  try {
    formatterFor(timezone);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a local time "HH:MM" (00:00 to 23:59). */
export const isLocalTime = (value: unknown): value is string => typeof value === 'string' && HH_MM.test(value);

/** Whether `value` is a calendar date "YYYY-MM-DD" that exists. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE.exec(value);
  if (match === null) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Minutes since local midnight of "HH:MM". */
export function minutesOf(localTime: string): number {
  const match = HH_MM.exec(localTime);
  if (match === null) throw new RangeError(`not a local time: ${localTime}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

const ms = (instant: Date | string): number => (typeof instant === 'string' ? Date.parse(instant) : instant.getTime());
/** A calendar date as days since 1970-01-01, and back ("YYYY-MM-DD"). */
const dayNumber = (date: string): number => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY);
const dateOf = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

/** The local calendar date and wall-clock minute of an instant in a zone. */
export function localTimeOf(instant: Date | string, timezone: string): { date: string; minutes: number } {
  const wall = wallClockOf(ms(instant), timezone);
  const day = Math.floor(wall / DAY);
  return { date: dateOf(day), minutes: Math.floor((wall - day * DAY) / MINUTE) };
}

/**
 * Day starts already found (ms) by day number, per calendar (zone and day start): a hundred calendars
 * of a thousand days at most, the least recently used forgotten first.
 */
const dayStarts = new BoundedMap<string, BoundedMap<number, number>>(128);

/** How many calendars' day starts are kept (for tests: bounded, one per zone whatever its spelling). */
export const calendarsKept = (): number => dayStarts.size;

/** The instant (ms) event day `day` (days since 1970-01-01) starts. */
function dayStartMs(day: number, calendar: EventCalendar): number {
  const key = `${spelledZone(calendar.timezone)}|${calendar.day_starts_at}`;
  let starts = dayStarts.get(key);
  if (starts === undefined) dayStarts.set(key, (starts = new BoundedMap(1024)));
  let start = starts.get(day);
  if (start === undefined) {
    const wall = day * DAY + minutesOf(calendar.day_starts_at) * MINUTE;
    start = firstInstantAtOrAfter(wall, calendar.timezone);
    starts.set(day, start);
  }
  return start;
}

/**
 * The instant an event day starts: the first instant at which the zone's wall clock reads
 * `day_starts_at` on that date or later. A start inside a daylight saving gap (02:30 on a
 * spring-forward night) is the first instant after the gap; one the zone repeats (02:30 on a
 * fall-back night) is its first occurrence.
 */
export function eventDayStart(day: string, calendar: EventCalendar): Date {
  return new Date(dayStartMs(dayNumber(day), calendar));
}

/** The event day (days since 1970-01-01) of an instant: the latest day whose start is at or before it. */
function eventDayNumber(instant: number, calendar: EventCalendar): number {
  // The day before the local date has started (its start reads an earlier wall clock than any time of
  // the local date), and starts only move forward: the latest started day is found from there.
  let day = Math.floor(wallClockOf(instant, calendar.timezone) / DAY) - 1;
  // (A zone that once turned its clock back a whole day, across the date line, is the exception.)
  while (dayStartMs(day, calendar) > instant) day -= 1;
  while (dayStartMs(day + 1, calendar) <= instant) day += 1;
  return day;
}

/** The event day an instant falls in ("YYYY-MM-DD"): the one whose start is the latest at or before it. */
export function eventDayOf(instant: Date | string, calendar: EventCalendar): string {
  return dateOf(eventDayNumber(ms(instant), calendar));
}

/**
 * The event days an event runs on: from the day of its `event_date` to the day of its `ends_at` (the
 * event days those instants fall in); null for an event without an end, which no date bounds.
 */
export function eventDaysOf(eventDate: string, endsAt: string | null, calendar: EventCalendar): EventDays | null {
  if (endsAt === null) return null;
  return { first: eventDayOf(eventDate, calendar), last: eventDayOf(endsAt, calendar) };
}

/**
 * The start of the hour of the zone's clock an instant falls in: the instant less what its wall clock
 * reads past the hour. Each hour of the zone is its own: an hour the zone repeats (autumn) is two
 * hours, one per offset, and the hour after a spring gap starts at the gap's end. In a zone half an
 * hour off UTC (Asia/Kolkata) the hours start at half past, UTC.
 */
export function hourStartOf(instant: Date | string, timezone: string): Date {
  const at = ms(instant);
  const wall = wallClockOf(at, timezone);
  return new Date(at - (((wall % HOUR) + HOUR) % HOUR));
}

/** Whether an event day is one of the event's days (always, for an event that no date bounds). */
export const withinEventDays = (day: string, days: EventDays | null | undefined): boolean =>
  days == null || (days.first <= day && day <= days.last);

/** Minutes since the event day's start of a local time, so that times after midnight order last. */
function withinDay(minutes: number, dayStartsAt: string): number {
  return (minutes - minutesOf(dayStartsAt) + MINUTES_PER_DAY) % MINUTES_PER_DAY;
}

/**
 * Where an instant is in its event day, in minutes of wall-clock time since the day's local start
 * (0 … 1439). In the hour a zone repeats after a day has started, the wall clock reads earlier than the
 * day's start: those instants count as at its start.
 */
function placeInDay(instant: number, calendar: EventCalendar): number {
  const day = eventDayNumber(instant, calendar);
  const startWall = day * DAY + minutesOf(calendar.day_starts_at) * MINUTE;
  const since = Math.floor((wallClockOf(instant, calendar.timezone) - startWall) / MINUTE);
  return Math.min(Math.max(since, 0), MINUTES_PER_DAY - 1);
}

/**
 * Whether an instant is inside a window of local times of its event day: a scan at `from` is inside,
 * one at `until` is not. Times order within the event day (a day starting at 06:00 orders 06:00 …
 * 23:59, 00:00 … 05:59), so a window 20:00–02:00 holds the night after 20:00.
 */
export function withinHours(instant: Date | string, hours: Hours, calendar: EventCalendar): boolean {
  const start = calendar.day_starts_at;
  const at = placeInDay(ms(instant), calendar);
  return withinDay(minutesOf(hours.from), start) <= at && at < withinDay(minutesOf(hours.until), start);
}

/** Whether `from` comes before `until` in the event day's order (the one valid shape of `hours`). */
export function hoursInOrder(hours: Hours, calendar: Pick<EventCalendar, 'day_starts_at'>): boolean {
  const order = (t: string) => withinDay(minutesOf(t), calendar.day_starts_at);
  return order(hours.from) < order(hours.until);
}
