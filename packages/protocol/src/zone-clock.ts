/**
 * A zone's wall clock, read from the platform's time-zone database (`Intl`): the local date and time of
 * an instant, and the first instant at which the wall clock reads a given local time or later. Offsets
 * are only ever read from the zone (an instant's wall clock less the instant), never written by hand, so
 * daylight saving changes, 30-minute shifts and skipped midnights are the zone's own.
 *
 * Wall-clock readings are numbers: milliseconds since 1970-01-01T00:00 of the local date and time, as
 * if it were UTC (`Date.UTC` of the reading), so that local times compare and subtract as numbers.
 */
import { BoundedMap } from './bounded-map.ts';
import { canonicalZone } from './zone-names.ts';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** Beyond any offset a zone has ever had (the largest are just under 16 hours). */
const FARTHEST_OFFSET = 18 * HOUR;
/** How far apart offsets are sampled to find a change: no zone changes twice within it. */
const SAMPLE = 3 * HOUR;

/**
 * One formatter per zone, a few hundred zones at most, oldest out first. Kept by the zone's canonical
 * name (`canonicalZone`), never by a name as typed: the spellings of one zone in every case share one.
 */
const formatters = new BoundedMap<string, Intl.DateTimeFormat>(256);

/** How many formatters are kept (for tests: the cache stays bounded whatever the spellings met). */
export const formattersKept = (): number => formatters.size;

const newFormatter = (timezone: string): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });

/** The formatter of a zone's wall clock; throws a RangeError for a zone the platform does not know. */
export function formatterFor(timezone: string): Intl.DateTimeFormat {
  // Stored zones are spelled canonically already: one lookup, no case folding.
  const kept = formatters.peek(timezone);
  if (kept !== undefined) return kept;
  // Every spelling of a zone of the database shares one formatter. A name the database lacks (an alias
  // only the platform knows, such as PST, kept by an older release) is kept as it is: the issuer no
  // longer stores such names, so they are few.
  const key = canonicalZone(timezone) ?? timezone;
  let formatter = formatters.peek(key);
  if (formatter === undefined) formatters.set(key, (formatter = newFormatter(key)));
  return formatter;
}

/**
 * A stored zone as the database spells it (rows written before zones were stored canonically may
 * hold another case); a name the database lacks is answered as stored. Never throws.
 */
export const spelledZone = (timezone: string): string => canonicalZone(timezone) ?? timezone;

/** Digit `at` of a reading. */
const digit = (reading: string, at: number): number => reading.charCodeAt(at) - 48;
const twoDigits = (reading: string, at: number): number => digit(reading, at) * 10 + digit(reading, at + 1);

/** The wall clock of an instant (ms since the epoch) in a zone, as a number (see above). */
export function wallClockOf(instant: number, timezone: string): number {
  const formatter = formatterFor(timezone);
  // Offsets are whole seconds: the instant's milliseconds are the wall clock's.
  const millis = ((instant % SECOND) + SECOND) % SECOND;
  // The en-US reading "MM/DD/YYYY, HH:MM:SS", read by position (`format` is three times faster than
  // `formatToParts`); a reading of another shape (a year before 1000) is read by its parts.
  const r = formatter.format(instant);
  if (r.length === 20) {
    const year = twoDigits(r, 6) * 100 + twoDigits(r, 8);
    const [hour, minute, second] = [twoDigits(r, 12), twoDigits(r, 15), twoDigits(r, 18)];
    return Date.UTC(year, twoDigits(r, 0) - 1, twoDigits(r, 3), hour, minute, second) + millis;
  }
  const [month, day, year, hour, minute, second] = partsOf(formatter, instant) as [number, ...number[]];
  const wall = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  wall.setUTCFullYear(year!);
  return wall.getTime() + millis;
}

/** Month, day, year, hour, minute, second of a reading in another shape (a year before 1000). */
function partsOf(formatter: Intl.DateTimeFormat, instant: number): number[] {
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const { type, value } of formatter.formatToParts(instant)) part[type] = Number(value);
  return [part.month!, part.day!, part.year!, part.hour!, part.minute!, part.second!];
}

/** The zone's offset at an instant: its wall clock less the instant (ms). */
const offsetAt = (instant: number, timezone: string): number => wallClockOf(instant, timezone) - instant;

/**
 * The first instant after `from` (whose offset is `offset`) and no later than `until` at which the
 * zone's offset is another, or null: found by sampling, then halving down to the second.
 */
function nextChange(from: number, offset: number, until: number, timezone: string): number | null {
  let before = from;
  for (;;) {
    const probe = Math.min(before + SAMPLE, until);
    if (offsetAt(probe, timezone) !== offset) {
      let [low, high] = [Math.ceil(before / SECOND), Math.floor(probe / SECOND)];
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (offsetAt(middle * SECOND, timezone) === offset) low = middle;
        else high = middle;
      }
      return high * SECOND;
    }
    if (probe >= until) return null;
    before = probe;
  }
}

/**
 * The first instant at which the zone's wall clock reads `wall` or later. A local time that the zone
 * repeats (autumn) gives its first occurrence; one that it skips (spring) gives the first instant after
 * the gap. The zone's offset is constant between changes, so within each such stretch the wall clock
 * runs with time: the stretches are walked in order from well before `wall` until one reaches it.
 */
export function firstInstantAtOrAfter(wall: number, timezone: string): number {
  const until = wall + FARTHEST_OFFSET;
  let from = wall - FARTHEST_OFFSET;
  let offset = offsetAt(from, timezone);
  for (;;) {
    const change = nextChange(from, offset, until, timezone);
    const end = change ?? until;
    const candidate = Math.max(from, wall - offset);
    if (candidate < end || change === null) return Math.min(candidate, until);
    from = change;
    offset = offsetAt(change, timezone);
  }
}
