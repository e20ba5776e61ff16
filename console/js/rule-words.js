/**
 * A ticket type's entry rules as an organizer reads them: "Sat 6 Jun only", "10:00–18:00",
 * "2 entries, 1 a day, any 2 days", "re-entry: any time". Pure (no DOM), so Node's test runner loads it
 * as it is served.
 */
import { plural } from './words.js';

/** Event-day dates are calendar dates: they are formatted as such, never moved by a time zone. */
const DAY = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

const DAY_MS = 86_400_000;
const dateMs = (date) => Date.parse(`${date}T00:00:00Z`);

/** An event day's date ("2030-06-06") in words: "Thu 6 Jun", with its year when asked. */
export function dayText(date, withYear = false) {
  const part = Object.fromEntries(DAY.formatToParts(new Date(dateMs(date))).map((p) => [p.type, p.value]));
  return `${part.weekday} ${part.day} ${part.month}${withYear ? ` ${part.year}` : ''}`;
}

/**
 * The days a type is valid on: "Every day", "Sat 6 Jun only", "Fri 5 Jun, Sun 7 Jun"; three or more
 * days in a row read as a span, "Fri 5 Jun – Sun 7 Jun". Years are said when the days span several.
 */
export function daysText(days) {
  if (days === null || days === undefined || days.length === 0) return 'Every day';
  const sorted = [...days].sort();
  const withYear = new Set(sorted.map((date) => date.slice(0, 4))).size > 1;
  const say = (date) => dayText(date, withYear);
  if (sorted.length === 1) return `${say(sorted[0])} only`;
  const runs = [];
  for (const date of sorted) {
    const run = runs.at(-1);
    if (run && dateMs(date) - dateMs(run.at(-1)) === DAY_MS) run.push(date);
    else runs.push([date]);
  }
  return runs.flatMap((run) => (run.length >= 3 ? [`${say(run[0])} – ${say(run.at(-1))}`] : run.map(say))).join(', ');
}

/** The window of local times: "10:00–18:00", or "All day". */
export function hoursText(hours) {
  return hours ? `${hours.from}–${hours.until}` : 'All day';
}

/**
 * The entry limits: "No entry limit", "2 entries", "1 entry a day", "2 entries, 1 a day", and the days a
 * ticket may enter on: "Any 2 days", "2 entries, any 2 days".
 */
export function entriesText(maxEntries, maxPerDay, maxDays = null) {
  const days = maxDays === null || maxDays === undefined ? null : `any ${plural(maxDays, 'day', 'days')}`;
  if (maxEntries === null && maxPerDay === null) return days === null ? 'No entry limit' : `A${days.slice(1)}`;
  let limits;
  if (maxPerDay === null) limits = plural(maxEntries, 'entry', 'entries');
  else if (maxEntries === null) limits = `${plural(maxPerDay, 'entry', 'entries')} a day`;
  else limits = `${plural(maxEntries, 'entry', 'entries')}, ${maxPerDay} a day`;
  return days === null ? limits : `${limits}, ${days}`;
}

const REENTRY_WORDS = { none: 'none', after_exit: 'after an exit', any: 'any time' };

/**
 * How a holder may come in again: "re-entry: any time"; a type that leaves it to the event says what
 * the event's setting gives, "re-entry: event default (none)".
 */
export function reentryText(mode, eventReentry) {
  if (mode === null || mode === undefined)
    return `re-entry: event default (${REENTRY_WORDS[eventReentry ? 'after_exit' : 'none']})`;
  return `re-entry: ${REENTRY_WORDS[mode] ?? mode}`;
}

/** The time between two entries: "30 min between entries", "2 h between entries", "1 h 30 min …". */
export function gapText(minutes) {
  if (minutes === null || minutes === undefined) return null;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const span = minutes < 60 ? `${minutes} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  return `${span} between entries`;
}

/** How a type's attention mark reads among its rules. */
export const ATTENTION = 'Attention at the gate';

/**
 * Every rule of a type, each in words, in the order the gate judges them: days, hours, limits,
 * re-entry, time between entries, then the notes for the gate. `event`: its `reentry` setting.
 */
export function ruleWords(type, event) {
  return [
    daysText(type.valid_days),
    hoursText(type.hours),
    entriesText(type.max_entries, type.max_entries_per_day, type.max_days ?? null),
    reentryText(type.reentry, event.reentry === true),
    gapText(type.min_minutes_between_entries),
    type.attention ? ATTENTION : null,
    type.checkin_text ? `Check-in text: ${type.checkin_text}` : null,
  ].filter(Boolean);
}

/**
 * The event day an instant falls in ("YYYY-MM-DD"): the local date in `timezone`, the day before when
 * the local time is earlier than `dayStartsAt` (a day starting at 06:00 holds the night after it).
 */
export function eventDayOf(iso, timezone, dayStartsAt) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  return `${parts.hour}:${parts.minute}` < dayStartsAt ? nextDay(date, -1) : date;
}

/** The calendar date `step` days after `date` (both "YYYY-MM-DD"). */
export function nextDay(date, step = 1) {
  return new Date(dateMs(date) + step * DAY_MS).toISOString().slice(0, 10);
}

/** The IANA zones this browser knows, UTC included, to pick an event's zone from. */
export function timeZones() {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}
