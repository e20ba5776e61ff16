import { canonicalZone, hoursInOrder, isKnownTimezone, isLocalTime } from '@ticket-issuer/protocol';
import type { EventRecord, EventSettings, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { newEventId } from './ids.ts';
import { HOUR_MS, parseUtcInstant, toStored, toWire } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

export interface NewEvent {
  name: string;
  event_date: string;
  ends_at?: string | null;
  timezone?: string;
  day_starts_at?: string;
  auto_exit?: boolean;
}

/** An event's calendar when none is given: UTC days from midnight, no automatic exit. */
export const DEFAULT_CALENDAR = { timezone: 'UTC', day_starts_at: '00:00', auto_exit: false } as const;

/** An IANA zone name as written (`Europe/Berlin`, `Etc/GMT+1`, `UTC`): never an offset such as `+01:00`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The event's zone, checked against the platform's time-zone database and spelled as the database
 * spells the name given (`america/argentina/buenos_aires` is kept as `America/Argentina/Buenos_Aires`,
 * not as the zone that link points to); 400 naming `timezone` for a name the database lacks (the
 * platform's own aliases, such as `PST` or `BST`, included) or the platform does not know.
 */
export function timezoneField(value: string): string {
  // The database's own list first: a name it lacks never reaches the platform's zone cache.
  const spelled = ZONE_NAME.test(value) ? canonicalZone(value) : undefined;
  if (spelled === undefined || !isKnownTimezone(spelled))
    throw invalidRequest('timezone is not a known time zone', [
      { field: 'timezone', problem: 'must be an IANA time zone such as Europe/Berlin, or UTC' },
    ]);
  return spelled;
}

/** The local time an event day starts at; 400 naming `day_starts_at` unless it is "HH:MM". */
export function dayStartField(value: string): string {
  if (!isLocalTime(value))
    throw invalidRequest('day_starts_at is not a local time', [
      { field: 'day_starts_at', problem: 'must be a local time "HH:MM" from 00:00 to 23:59' },
    ]);
  return value;
}

/** Parses an instant field of an admin request, naming the field when it is not one. */
export function instantField(field: string, value: string): string {
  const date = parseUtcInstant(value);
  if (!date)
    throw invalidRequest(`${field} must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z`, [
      { field, problem: 'must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z' },
    ]);
  return toStored(date);
}

/** Creates an event; `ends_at`, when given, may not precede `event_date`. */
export async function createEvent(store: Store, clock: Clock, input: NewEvent): Promise<EventRecord> {
  const eventDate = instantField('event_date', input.event_date);
  const endsAt = input.ends_at ? instantField('ends_at', input.ends_at) : null;
  if (endsAt !== null && endsAt < eventDate) {
    throw invalidRequest('ends_at precedes event_date', [{ field: 'ends_at', problem: 'must not precede event_date' }]);
  }
  const event: EventRecord = {
    eid: newEventId(),
    name: input.name,
    event_date: eventDate,
    ends_at: endsAt,
    created_at: toStored(clock.now()),
    reentry: false,
    capacity: null,
    timezone: input.timezone === undefined ? DEFAULT_CALENDAR.timezone : timezoneField(input.timezone),
    day_starts_at:
      input.day_starts_at === undefined ? DEFAULT_CALENDAR.day_starts_at : dayStartField(input.day_starts_at),
    auto_exit: input.auto_exit ?? DEFAULT_CALENDAR.auto_exit,
  };
  noteAudit({ target: event.eid, eid: event.eid });
  await store.events.createEvent(event);
  return event;
}

/** The event or NOT_FOUND. */
export async function requireEvent(store: Store, eid: string): Promise<EventRecord> {
  const event = await store.events.getEvent(eid);
  if (!event) throw new IssuerError('NOT_FOUND', 'no event has this eid');
  return event;
}

/** When the event is over: its `ends_at`, or its start when no end was given. */
export function eventEnd(event: EventRecord): string {
  return event.ends_at ?? event.event_date;
}

/** API keys expire by default a day after the event ends. */
export function defaultKeyExpiry(event: EventRecord): string {
  return toStored(new Date(new Date(eventEnd(event)).getTime() + 24 * HOUR_MS));
}

export function eventView(event: EventRecord) {
  return {
    eid: event.eid,
    name: event.name,
    event_date: toWire(event.event_date),
    ends_at: toWire(event.ends_at),
    created_at: toWire(event.created_at),
    reentry: event.reentry,
    capacity: event.capacity,
    timezone: event.timezone,
    day_starts_at: event.day_starts_at,
    auto_exit: event.auto_exit,
  };
}

/**
 * Changes an event's settings (re-entry, capacity, calendar, automatic exit); NOT_FOUND when there is
 * no such event. A new day start that would put a declared type's `hours` out of order (`from` after
 * `until` in the new day) is refused, naming `day_starts_at`.
 */
export async function updateEventSettings(store: Store, eid: string, settings: EventSettings): Promise<EventRecord> {
  const checked: EventSettings = { ...settings };
  if (settings.timezone !== undefined) checked.timezone = timezoneField(settings.timezone);
  if (settings.day_starts_at !== undefined) {
    checked.day_starts_at = dayStartField(settings.day_starts_at);
    await requireEvent(store, eid);
    await refuseHoursOutOfOrder(store, eid, checked.day_starts_at);
  }
  // Nothing to set writes nothing (on every store: the audit trail records no change).
  if (Object.values(checked).every((value) => value === undefined)) return requireEvent(store, eid);
  const event = await store.events.updateEventSettings(eid, checked);
  if (!event) throw new IssuerError('NOT_FOUND', 'no event has this eid');
  return event;
}

async function refuseHoursOutOfOrder(store: Store, eid: string, dayStartsAt: string): Promise<void> {
  const clash = (await store.events.listTicketTypes(eid)).find(
    (type) => type.hours !== null && !hoursInOrder(type.hours, { day_starts_at: dayStartsAt }),
  );
  if (clash)
    throw invalidRequest(`with days starting at ${dayStartsAt}, the hours of ${clash.ticket_type} would end first`, [
      {
        field: 'day_starts_at',
        problem: `must keep each declared ticket type's hours in order (${clash.ticket_type}: ${clash.hours!.from} to ${clash.hours!.until})`,
      },
    ]);
}
