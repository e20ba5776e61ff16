import { DEFAULT_EVENT_RULES, eventDaysOf, type EventRules, reentryMode } from '@ticket-issuer/protocol';
import type { Store } from '../store/store.ts';
import type { EntryRules } from './decide.ts';
import { FreshCache } from './fresh-cache.ts';

/** How long an instance trusts an event's settings before reading them again. */
export const SETTINGS_TTL_MS = 1000;

/** An event's rules, and whether an entry may depend on where the holder is (some re-entry). */
export interface EventEntryRules extends EntryRules {
  /** Some holder may come in again (the event's re-entry, or a type's `after_exit` or `any`). */
  reentry: boolean;
}

/**
 * Each event's entry rules as a check-in needs them (its re-entry, calendar, days and declared ticket
 * types), trusted for a second per instance and read again about twice a second while scans come: a
 * check-in does not pay reads for settings that change once an event, if ever. A change made through
 * this instance applies at once; one made through another instance within a second. The check-in itself is then decided in the
 * store's transaction, on the ticket, the holder's presence and the ticket's entries as they are.
 * How the settings are kept and read again: see FreshCache.
 */
export class EventSettingsCache {
  /** Unknown events are remembered too (the spec's rules alone): a scan names its event, any event. */
  private readonly cache: FreshCache<string, EventEntryRules>;

  constructor(
    private readonly store: Store,
    now?: () => number,
  ) {
    this.cache = new FreshCache({ ttlMs: SETTINGS_TTL_MS, now });
  }

  /** The event's entry rules; an unknown event has none (the spec's rules alone). */
  rules(eid: string): Promise<EventEntryRules> {
    return this.cache.get(eid, () => this.read(eid));
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
    this.cache.forget(eid);
  }
}
