import type { TicketTypeRules } from '@ticket-issuer/protocol';
import type { EventCounters, EventRecord, EventSettings, GateRecord, TicketTypeRecord } from './event-records.ts';
import type { Page } from './records.ts';
import type { OwnedResource } from './owning-event.ts';

/** Events, their gates and ticket types, and their kept counters. Every method is one transaction; each says what it guarantees. */
export interface EventStore {
  /** Inserts a new event. */
  createEvent(event: EventRecord): Promise<void>;
  /** The event, or null. */
  getEvent(eid: string): Promise<EventRecord | null>;
  /** Changes an event's settings; answers the event as it is now, or null when there is none. */
  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null>;
  /** Declares a gate, or replaces the declaration of that gate_id. */
  putGate(gate: GateRecord): Promise<void>;
  /** A declared gate, or null. */
  getGate(eid: string, gateId: string): Promise<GateRecord | null>;
  /** The event's declared gates in gate_id order. */
  listGates(eid: string): Promise<GateRecord[]>;
  /** The event's declared ticket types and their entry rules, in label order. */
  listTicketTypes(eid: string): Promise<TicketTypeRules[]>;
  /**
   * Declares a ticket type, or replaces the declaration of its label as rules compare labels
   * (`ticketTypeKey`: `VIP` and `vip ` are one type), spelling included.
   */
  putTicketType(type: TicketTypeRecord): Promise<void>;
  /** Removes the declaration of the type with this key (`ticketTypeKey`); false when none was declared. */
  deleteTicketType(eid: string, typeKey: string): Promise<boolean>;
  /** Every distinct `ticket_type` on the event's tickets, as spelled on them, revoked tickets included. */
  listTicketLabels(eid: string): Promise<string[]>;
  /** Removes a gate's declaration; false when it was not declared. */
  deleteGate(eid: string, gateId: string): Promise<boolean>;
  /**
   * Events in eid order (ids are time-ordered to the millisecond), a page at a time (cursor: the last eid
   * seen); with `only`, just those of its eids that exist (a person's own events).
   */
  listEvents(limit: number, after: string | null, only?: readonly string[] | null): Promise<Page<EventRecord>>;
  /** The eid of the event a ticket, an enrolment token or a scanner's API key belongs to; null when unknown. */
  eventOf(resource: OwnedResource, id: string): Promise<string | null>;
  /** The event's counters: issued, checked in, revoked, in conflict; kept with each change, read in one row. */
  countTickets(eid: string): Promise<EventCounters>;
}
