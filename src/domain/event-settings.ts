import { DEFAULT_EVENT_RULES, eventDaysOf, type EventRules, reentryMode } from '@ticket-issuer/protocol';
import type { Store } from '../store/store.ts';
import type { EntryRules } from './decide.ts';

/** How long an instance trusts an event's settings before reading them again. */
export const SETTINGS_TTL_MS = 1000;

/** An event's rules, and whether an entry may depend on where the holder is (some re-entry). */
export interface EventEntryRules extends EntryRules {
  /** Some holder may come in again (the event's re-entry, or a type's `after_exit` or `any`). */
  reentry: boolean;
}

/**
 * Each event's entry rules as a check-in needs them (its re-entry, calendar, days and declared ticket
 * types), read from the store at most once a second per instance: a check-in does not pay reads for
 * settings that change once an event, if ever. A change made through this instance applies at once;
 * one made through another instance within a second. The check-in itself is then decided in the
 * store's transaction, on the ticket, the holder's presence and the ticket's entries as they are.
 */
export class EventSettingsCache {
  private readonly entries = new Map<string, { rules: EventEntryRules; readAt: number }>();
  /**
   * The read of an event's settings under way: the check-ins that find none fresh while it runs wait
   * for it rather than read again, so a burst of scans at an expired entry reads once, not once each
   * (hundreds of reads at once would wait for the store's connections past its bound).
   */
  private readonly reading = new Map<string, Promise<EventEntryRules>>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The event's entry rules; an unknown event has none (the spec's rules alone). */
  async rules(eid: string): Promise<EventEntryRules> {
    const cached = this.entries.get(eid);
    if (cached && this.now() - cached.readAt < SETTINGS_TTL_MS) return cached.rules;
    const pending = this.reading.get(eid);
    if (pending) return pending;
    // Kept only if the read is still the event's current one: a `forget` while it ran wins.
    const current = () => this.reading.get(eid) === read;
    const read: Promise<EventEntryRules> = this.read(eid).then(
      (rules) => {
        if (current()) {
          this.reading.delete(eid);
          // A bounded map: settings of events no longer scanned are dropped rather than kept for ever.
          if (this.entries.size >= 10_000) this.entries.clear();
          this.entries.set(eid, { rules, readAt: this.now() });
        }
        return rules;
      },
      (error: unknown) => {
        if (current()) this.reading.delete(eid);
        throw error;
      },
    );
    this.reading.set(eid, read);
    return read;
  }

  private async read(eid: string): Promise<EventEntryRules> {
    const [event, types] = await Promise.all([this.store.events.getEvent(eid), this.store.events.listTicketTypes(eid)]);
    const calendar: EventRules = {
      reentry: event?.reentry ?? false,
      timezone: event?.timezone ?? DEFAULT_EVENT_RULES.timezone,
      day_starts_at: event?.day_starts_at ?? DEFAULT_EVENT_RULES.day_starts_at,
      auto_exit: event?.auto_exit ?? false,
    };
    // An event with an end bounds every type without valid_days by its days.
    calendar.event_days = event ? eventDaysOf(event.event_date, event.ends_at, calendar) : null;
    return {
      event: calendar,
      types,
      reentry: calendar.reentry || types.some((type) => reentryMode(type, calendar) !== 'none'),
    };
  }

  /** Whether some holder of the event may come in again; false for an unknown event. */
  async reentry(eid: string): Promise<boolean> {
    return (await this.rules(eid)).reentry;
  }

  /** Forgets an event's settings (after this instance changed them or its ticket types). */
  forget(eid: string): void {
    this.entries.delete(eid);
    this.reading.delete(eid);
  }
}
