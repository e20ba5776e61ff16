/**
 * Event days, computed in one place for the issuer and every scanner. An event day runs from the
 * event's `day_starts_at` (local wall time in its `timezone`) to the same local time the next day, and
 * its date is the local date at its start: with a day starting at 06:00, 02:00 on Saturday belongs to
 * Friday. Local times come from the platform's time-zone database (`Intl`), and the one conversion
 * from a local time to an instant (`eventDayStart`) from `date-fns-tz`: no offset is ever written by
 * hand, so daylight saving changes are the zone's own.
 */
import { fromZonedTime } from 'date-fns-tz';

/** An event's calendar: its zone (IANA name) and the local time its days start at ("HH:MM"). */
export interface EventCalendar {
  timezone: string;
  day_starts_at: string;
}

/** A `from`–`until` window of local times within an event day. */
export interface Hours {
  from: string;
  until: string;
}

const MINUTES_PER_DAY = 24 * 60;
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

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

/** The local calendar date and wall-clock minute of an instant in a zone. */
export function localTimeOf(instant: Date | string, timezone: string): { date: string; minutes: number } {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timezone).formatToParts(new Date(instant))) parts[part.type] = part.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The calendar date before `date` (calendar arithmetic on dates, not on instants). */
function dayBefore(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}

/** The event day an instant falls in: the local date at the start of the day that contains it. */
export function eventDayOf(instant: Date | string, calendar: EventCalendar): string {
  const local = localTimeOf(instant, calendar.timezone);
  return local.minutes < minutesOf(calendar.day_starts_at) ? dayBefore(local.date) : local.date;
}

/**
 * The instant an event day starts: `day_starts_at` on that local date. On a day whose start falls in
 * a daylight saving gap (02:30 on a spring-forward night), it is the first instant after the gap, the
 * first one whose local time belongs to the day (found on the zone's own clock, minute by minute).
 */
export function eventDayStart(day: string, calendar: EventCalendar): Date {
  const start = fromZonedTime(`${day}T${calendar.day_starts_at}:00`, calendar.timezone);
  if (eventDayOf(start, calendar) === day) return start;
  // Inside a gap the conversion answers an instant before it: the day starts within three hours.
  let [before, after] = [0, 3 * 60];
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (eventDayOf(new Date(start.getTime() + middle * 60_000), calendar) === day) after = middle;
    else before = middle;
  }
  return new Date(start.getTime() + after * 60_000);
}

/** Minutes since the event day's start of a local time, so that times after midnight order last. */
function withinDay(minutes: number, dayStartsAt: string): number {
  return (minutes - minutesOf(dayStartsAt) + MINUTES_PER_DAY) % MINUTES_PER_DAY;
}

/**
 * Whether an instant is inside a window of local times of its event day: a scan at `from` is inside,
 * one at `until` is not. Times order within the event day (a day starting at 06:00 orders 06:00 …
 * 23:59, 00:00 … 05:59), so a window 20:00–02:00 holds the night after 20:00.
 */
export function withinHours(instant: Date | string, hours: Hours, calendar: EventCalendar): boolean {
  const start = calendar.day_starts_at;
  const at = withinDay(localTimeOf(instant, calendar.timezone).minutes, start);
  return withinDay(minutesOf(hours.from), start) <= at && at < withinDay(minutesOf(hours.until), start);
}

/** Whether `from` comes before `until` in the event day's order (the one valid shape of `hours`). */
export function hoursInOrder(hours: Hours, calendar: Pick<EventCalendar, 'day_starts_at'>): boolean {
  const order = (t: string) => withinDay(minutesOf(t), calendar.day_starts_at);
  return order(hours.from) < order(hours.until);
}
