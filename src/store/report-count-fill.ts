import { type EventCalendar, eventDayOf } from '@ticket-issuer/protocol';

/**
 * The event days of entries, as migration 35 fills `entries.day` for the entries made before it: each
 * event's zone and day start (`events`), and one zone reading per minute of scan time (a day starts on
 * a minute, so every instant of a minute falls in the same event day).
 */
export class EntryDays {
  private readonly calendars: Map<string, EventCalendar>;
  private readonly byMinute = new Map<string, string>();

  constructor(events: readonly ({ eid: string } & EventCalendar)[]) {
    this.calendars = new Map(
      events.map((e) => [e.eid, { timezone: e.timezone, day_starts_at: e.day_starts_at }] as const),
    );
  }

  /** The event day of an entry of `eid` scanned at `scannedAt` (UTC days for an event it does not know). */
  dayOf(eid: string, scannedAt: string): string {
    const key = `${eid} ${scannedAt.slice(0, 16)}`;
    let day = this.byMinute.get(key);
    if (day === undefined) {
      const calendar = this.calendars.get(eid) ?? { timezone: 'UTC', day_starts_at: '00:00' };
      day = eventDayOf(scannedAt, calendar);
      this.byMinute.set(key, day);
    }
    return day;
  }
}

/** The event days' holders from the entries whose day is filled (both stores' SQL). */
export const FILL_DAY_HOLDERS_SQL = `INSERT INTO day_holders (eid, day, holders)
  SELECT eid, day, COUNT(DISTINCT tid) FROM entries WHERE annulled_at IS NULL AND day IS NOT NULL GROUP BY eid, day;`;

/** The ticket types' counts from the tickets (both stores' SQL). */
export const FILL_TYPE_COUNTS_SQL = `INSERT INTO type_counts (eid, ticket_type, issued, checked_in, revoked, checked_in_revoked)
  SELECT eid, ticket_type, COUNT(*), COUNT(checked_in_at), COUNT(revoked_at),
    COUNT(CASE WHEN checked_in_at IS NOT NULL AND revoked_at IS NOT NULL THEN 1 END)
  FROM tickets GROUP BY eid, ticket_type;`;
