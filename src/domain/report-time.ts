/**
 * The report's time axis: an event's moves per minute of scan time, gathered into the hours and the
 * event days of its zone. Hours and days come from packages/protocol (`hourStartOf`, `eventDayOf`), the
 * one place that knows zones; nothing here adds or subtracts an offset.
 */
import { type EventCalendar, eventDayOf, hourStartOf } from '@ticket-issuer/protocol';
import type { MinuteMoves } from '../store/store.ts';
import { toStored, toWire } from './time.ts';

const HOUR = 3_600_000;
/** More hours than two months of them (a stray scan years off): only the hours with moves are listed. */
const MAX_HOURS = 24 * 62;

export interface HourRow {
  /** The hour's start in the event's zone, as an instant (ISO 8601 UTC). */
  hour: string;
  entries: number;
  exits: number;
  /** Holders inside when the hour ended (entries less exits less re-entries of holders inside, so far). */
  inside_at_end: number;
}

/** When the most holders were inside: the minute (its start, ISO 8601 UTC) it first reached that many. */
export interface Peak {
  at: string | null;
  inside: number;
}

const instantOf = (minute: string): number => Date.parse(`${minute}:00.000Z`);
const wire = (ms: number): string => toWire(toStored(new Date(ms)));

/** Inside at the end of each minute, and the peak: the first minute the most holders were inside. */
export function peakOf(minutes: MinuteMoves[]): Peak {
  let inside = 0;
  let peak: Peak = { at: null, inside: 0 };
  for (const m of minutes) {
    inside += m.entries - m.exits - m.repeats;
    if (inside > peak.inside) peak = { at: wire(instantOf(m.minute)), inside };
  }
  return peak;
}

/**
 * The moves per hour of the zone's clock, every hour from the first move's to the last's (the ones
 * without moves too, so that a chart reads them as a line), each with who was inside at its end.
 */
export function hoursOf(minutes: MinuteMoves[], timezone: string): HourRow[] {
  const hours = new Map<number, { entries: number; exits: number; net: number }>();
  for (const m of minutes) {
    const start = hourStartOf(new Date(instantOf(m.minute)), timezone).getTime();
    const hour = hours.get(start) ?? { entries: 0, exits: 0, net: 0 };
    hour.entries += m.entries;
    hour.exits += m.exits;
    hour.net += m.entries - m.exits - m.repeats;
    hours.set(start, hour);
  }
  const starts = [...hours.keys()].sort((a, b) => a - b);
  let inside = 0;
  return everyHour(starts, timezone).map((start) => {
    const hour = hours.get(start) ?? { entries: 0, exits: 0, net: 0 };
    inside += hour.net;
    return { hour: wire(start), entries: hour.entries, exits: hour.exits, inside_at_end: inside };
  });
}

/** Every hour start of the zone from the first of `starts` to the last (or `starts` alone, when too many). */
function everyHour(starts: number[], timezone: string): number[] {
  if (starts.length === 0) return [];
  const first = starts[0]!;
  const last = starts[starts.length - 1]!;
  if ((last - first) / HOUR > MAX_HOURS) return starts;
  const all = [first];
  for (let at = first; at < last;) {
    // The next hour of the zone's clock starts within an hour and a half (a half-hour summer shift).
    const next = hourStartOf(new Date(at + HOUR), timezone).getTime();
    at = next > at ? next : at + HOUR;
    all.push(at);
  }
  return all;
}

/** An event day with entries: its date and its entries. */
export interface DayEntries {
  date: string;
  entries: number;
}

/** The event days with entries, in order, with their entries. */
export function daysOf(minutes: MinuteMoves[], calendar: EventCalendar): DayEntries[] {
  const days = new Map<string, number>();
  for (const m of minutes) {
    if (m.entries === 0) continue;
    const date = eventDayOf(new Date(instantOf(m.minute)), calendar);
    days.set(date, (days.get(date) ?? 0) + m.entries);
  }
  return [...days.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([date, entries]) => ({ date, entries }));
}
