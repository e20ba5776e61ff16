import type { Store } from '../store/store.ts';
import { requireEvent } from './events.ts';
import { daysOf, type HourRow, hoursOf, type Peak, peakOf } from './report-time.ts';

/** The event report (CONTRACT.md, "After the event: reports and exports"). */
export interface EventReport {
  tickets: { issued: number; revoked: number; checked_in: number; no_show: number };
  by_type: { ticket_type: string; issued: number; checked_in: number; no_show: number }[];
  by_gate: { gate_id: string | null; entries: number; exits: number }[];
  by_hour: HourRow[];
  by_day: { date: string; entries: number; unique_holders: number }[];
  peak_inside: Peak;
}

/**
 * The report of an event: its tickets (issued, revoked, checked in at least once, and no-shows: never
 * checked in and not revoked), per type and per gate, its entries, exits and holders inside per hour of
 * its zone, its entries and distinct holders per event day, and its peak. Annulled entries never count
 * (the store's counts leave them out). An unknown event: 404.
 */
export function eventReport(store: Store, eid: string): Promise<EventReport> {
  let underWay = reportsUnderWay.get(store);
  if (underWay === undefined) reportsUnderWay.set(store, (underWay = new Map()));
  const running = underWay.get(eid);
  if (running) return running;
  const started = readReport(store, eid).finally(() => underWay.delete(eid));
  underWay.set(eid, started);
  return started;
}

/**
 * Reports being read, by store and event: a request that arrives while its event's report is being read shares
 * that read rather than starting another (the per-minute reads grow with the minutes that had moves, see
 * docs/benchmark.md), so a burst of refreshes costs the store one read. Nothing is kept after it ends.
 */
const reportsUnderWay = new WeakMap<Store, Map<string, Promise<EventReport>>>();

async function readReport(store: Store, eid: string): Promise<EventReport> {
  const event = await requireEvent(store, eid);
  const calendar = { timezone: event.timezone, day_starts_at: event.day_starts_at };
  const counts = await store.reports.reportCounts(event.eid);
  const days = daysOf(counts.minutes, calendar);
  const total = (field: 'issued' | 'revoked' | 'checked_in' | 'no_show') =>
    counts.types.reduce((sum, type) => sum + type[field], 0);
  return {
    tickets: {
      issued: total('issued'),
      revoked: total('revoked'),
      checked_in: total('checked_in'),
      no_show: total('no_show'),
    },
    by_type: counts.types.map(({ ticket_type, issued, checked_in, no_show }) => ({
      ticket_type,
      issued,
      checked_in,
      no_show,
    })),
    by_gate: counts.gates,
    by_hour: hoursOf(counts.minutes, event.timezone),
    by_day: days.map((day) => ({
      date: day.date,
      entries: day.entries,
      unique_holders: counts.dayHolders.get(day.date) ?? 0,
    })),
    peak_inside: peakOf(counts.minutes),
  };
}
