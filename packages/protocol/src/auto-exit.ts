/**
 * The automatic exit (an event's `auto_exit`), as a rule of where the holder is rather than as a
 * write: a holder counted inside whose latest entry was scanned before the start of the scan's event
 * day was counted out at that start. The issuer's worker writes those exits within a minute of each
 * day start; the issuer's decision and every device's offline verdict apply this rule at the scan
 * itself, so a gate that has not synced since the day began, or an issuer whose worker has not run
 * yet, answers as if the exit had been made.
 */
import { eventDayOf, eventDayStart } from './event-days.ts';
import type { EventRules } from './entry-rules.ts';
import type { HolderState } from './ticket-rules.ts';

const ms = (instant: string): number => new Date(instant).getTime();

/** The latest of some instants (null for none). */
export function latestOf(instants: readonly string[]): string | null {
  let latest: string | null = null;
  for (const at of instants) if (latest === null || ms(at) > ms(latest)) latest = at;
  return latest;
}

/** Whether a holder whose latest entry was `lastEntryAt` was counted out by a day start at or before `scannedAt`. */
export function autoExitedBefore(lastEntryAt: string | null, scannedAt: string, event: EventRules): boolean {
  if (event.auto_exit !== true || lastEntryAt === null) return false;
  const start = eventDayStart(eventDayOf(scannedAt, event), event).getTime();
  return ms(lastEntryAt) < start && start <= ms(scannedAt);
}

/**
 * Where the holder is at a scan once the automatic exit is applied: `inside` becomes `out` when the
 * latest of `entries` came before the start of the scan's event day (and the event has `auto_exit`).
 */
export function holderAtScan(
  holder: HolderState,
  entries: readonly string[],
  scannedAt: string,
  event: EventRules,
): HolderState {
  if (holder !== 'inside') return holder;
  return autoExitedBefore(latestOf(entries), scannedAt, event) ? 'out' : holder;
}

/** The calendar date after `day` (calendar arithmetic on dates, not on instants). */
function dayAfter(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/**
 * The day start whose automatic exit a holder missed: the first day start after their latest entry,
 * when it is at or before `now` (an entry scanned before a day start and learned after it, an offline
 * entry uploaded late). Null when the event has no `auto_exit` or no day has started since.
 */
export function missedAutoExit(entries: readonly string[], now: string, event: EventRules): string | null {
  const latest = latestOf(entries);
  if (event.auto_exit !== true || latest === null) return null;
  const start = eventDayStart(dayAfter(eventDayOf(latest, event)), event);
  return start.getTime() <= ms(now) ? start.toISOString() : null;
}
