import type { TicketTypeRules } from '@ticket-issuer/protocol';
import type { EventSettings, GateRecord, EventCounters, EventRecord, Page, TicketTypeRecord } from '../store.ts';
import { numbered, one } from './queries.ts';
import { OWNING_EVENT_SQL, type OwnedResource } from '../owning-event.ts';
import * as counters from './counters.ts';
import * as events from './events.ts';
import * as gates from './gates.ts';
import * as ticketTypes from './ticket-types.ts';
import type pg from 'pg';
import type { EventStore } from '../event-store.ts';

/** Events, their gates and ticket types, and their kept counters. (PostgreSQL: see ../event-store.ts.) */
export class PostgresEventStore implements EventStore {
  constructor(private readonly b: { pool: pg.Pool }) {}

  createEvent(e: EventRecord): Promise<void> {
    return events.createEvent(this.b.pool, e);
  }

  getEvent(eid: string): Promise<EventRecord | null> {
    return events.getEvent(this.b.pool, eid);
  }

  listEvents(limit: number, after: string | null, only: readonly string[] | null = null): Promise<Page<EventRecord>> {
    return events.listEvents(this.b.pool, limit, after, only);
  }

  async eventOf(resource: OwnedResource, id: string): Promise<string | null> {
    return (await one<{ eid: string }>(this.b.pool, numbered(OWNING_EVENT_SQL[resource]), [id]))?.eid ?? null;
  }

  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null> {
    return events.updateEventSettings(this.b.pool, eid, settings);
  }

  putGate(gate: GateRecord): Promise<void> {
    return gates.putGate(this.b.pool, gate);
  }

  getGate(eid: string, gateId: string): Promise<GateRecord | null> {
    return gates.getGate(this.b.pool, eid, gateId);
  }

  listGates(eid: string): Promise<GateRecord[]> {
    return gates.listGates(this.b.pool, eid);
  }

  listTicketTypes(eid: string): Promise<TicketTypeRules[]> {
    return gates.listTicketTypes(this.b.pool, eid);
  }

  putTicketType(type: TicketTypeRecord): Promise<void> {
    return ticketTypes.putTicketType(this.b.pool, type);
  }

  deleteTicketType(eid: string, typeKey: string): Promise<boolean> {
    return ticketTypes.deleteTicketType(this.b.pool, eid, typeKey);
  }

  listTicketLabels(eid: string): Promise<string[]> {
    return ticketTypes.listTicketLabels(this.b.pool, eid);
  }

  deleteGate(eid: string, gateId: string): Promise<boolean> {
    return gates.deleteGate(this.b.pool, eid, gateId);
  }

  countTickets(eid: string): Promise<EventCounters> {
    return counters.countTickets(this.b.pool, eid);
  }
}
