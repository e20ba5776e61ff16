import type { EventRecord, EventSettings, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { newEventId } from './ids.ts';
import { HOUR_MS, parseUtcInstant, toStored, toWire } from './time.ts';

export interface NewEvent {
  name: string;
  event_date: string;
  ends_at?: string | null;
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
  };
  await store.createEvent(event);
  return event;
}

/** The event or NOT_FOUND. */
export async function requireEvent(store: Store, eid: string): Promise<EventRecord> {
  const event = await store.getEvent(eid);
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
  };
}

/** Changes an event's settings (re-entry, capacity); NOT_FOUND when there is no such event. */
export async function updateEventSettings(store: Store, eid: string, settings: EventSettings): Promise<EventRecord> {
  const event = await store.updateEventSettings(eid, settings);
  if (!event) throw new IssuerError('NOT_FOUND', 'no event has this eid');
  return event;
}
