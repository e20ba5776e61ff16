/**
 * Dates and times as the console shows them, everywhere in one format: the browser's locale, a
 * medium date and a short time ("2 Dec 2026, 13:07" or "Dec 2, 2026, 1:07 PM", as the browser's
 * language writes them). In the browser's time zone unless a zone is named (an event's report is
 * read in the event's zone). Pure (no DOM), so Node's test runner loads it as it is served.
 */

const STYLES = {
  both: { dateStyle: 'medium', timeStyle: 'short' },
  date: { dateStyle: 'medium' },
  time: { timeStyle: 'short' },
};

/** One formatter per style and zone: building them costs more than formatting with them. */
const formatters = new Map();

function formatter(style, timeZone) {
  const key = `${style} ${timeZone ?? ''}`;
  let found = formatters.get(key);
  if (found === undefined) {
    found = new Intl.DateTimeFormat(undefined, { ...STYLES[style], ...(timeZone ? { timeZone } : {}) });
    formatters.set(key, found);
  }
  return found;
}

/** An instant (ISO 8601, or ms since the epoch) as a date and time; '—' for none. */
export function when(instant, timeZone) {
  if (instant === null || instant === undefined || instant === '') return '—';
  return formatter('both', timeZone).format(new Date(instant));
}

/** The date part of an instant, in the same format. */
export function dateOf(instant, timeZone) {
  return formatter('date', timeZone).format(new Date(instant));
}

/** The time part of an instant, in the same format. */
export function timeOf(instant, timeZone) {
  return formatter('time', timeZone).format(new Date(instant));
}

/** A calendar date ("2026-12-02", an event day) in the same format, never moved by a zone. */
export function calendarDate(date) {
  return formatter('date', 'UTC').format(new Date(`${date}T00:00:00Z`));
}

/**
 * The labels of a time axis (ticks in seconds since the epoch): each tick's time, and the date
 * under the first tick and under each tick on a new day, in the same format as everywhere else.
 */
export function axisLabels(ticks, timeZone) {
  let lastDate = null;
  return ticks.map((tick) => {
    const date = dateOf(tick * 1000, timeZone);
    const label = date === lastDate ? timeOf(tick * 1000, timeZone) : `${timeOf(tick * 1000, timeZone)}\n${date}`;
    lastDate = date;
    return label;
  });
}

/** How far `timeZone`'s wall clock is ahead of UTC at an instant (ms). */
function offsetAt(ms, timeZone) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, Number(part.value)]),
  );
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant (ISO 8601 UTC) of a wall-clock time ("2026-12-02T19:30", a datetime-local value) in
 * `timeZone`. A time the zone skips (spring forward) moves forward by the gap; a repeated one (fall
 * back) is its first occurrence.
 */
export function instantIn(local, timeZone) {
  const [date, time = '00:00'] = local.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute, second = 0] = time.split(':').map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  // The offset of the day before first (a repeated time's first occurrence), then that of the day
  // after; a time that neither reads (skipped in a spring forward) is read with the earlier offset,
  // which lands after the gap.
  const first = wall - before;
  const later = wall - after;
  let instant = first;
  if (offsetAt(first, timeZone) !== before && offsetAt(later, timeZone) === after) instant = later;
  return new Date(instant).toISOString();
}

/** The browser's own zone (IANA name), UTC when it says none. */
export function browserZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
