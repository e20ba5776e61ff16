import type { TicketTypeRules } from '@ticket-issuer/protocol';
import type { EventCounters, EventRecord, Page, TicketTypeRecord, EventSettings, GateRecord } from '../store.ts';
import { SqliteContext } from './context.ts';
import { createEvent, getEvent, listEvents, updateEventSettings } from './events.ts';
import { countTickets } from './counters.ts';
import { OWNING_EVENT_SQL, type OwnedResource } from '../owning-event.ts';
import * as gates from './gates.ts';
import * as ticketTypes from './ticket-types.ts';
import type { EventStore } from '../event-store.ts';

/** Events, their gates and ticket types, and their kept counters. (Sqlite: see ../event-store.ts.) */
export class SqliteEventStore implements EventStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  createEvent(e: EventRecord): Promise<void> {
    return createEvent(this.b.ctx, e);
  }

  getEvent(eid: string): Promise<EventRecord | null> {
    return getEvent(this.b.ctx, eid);
  }

  listEvents(limit: number, after: string | null, only: readonly string[] | null = null): Promise<Page<EventRecord>> {
    return listEvents(this.b.ctx, limit, after, only);
  }

  async eventOf(resource: OwnedResource, id: string): Promise<string | null> {
    return this.b.ctx.one<{ eid: string }>(OWNING_EVENT_SQL[resource], id)?.eid ?? null;
  }

  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null> {
    return updateEventSettings(this.b.ctx, eid, settings);
  }

  putGate(gate: GateRecord): Promise<void> {
    return gates.putGate(this.b.ctx, gate);
  }

  getGate(eid: string, gateId: string): Promise<GateRecord | null> {
    return gates.getGate(this.b.ctx, eid, gateId);
  }

  listGates(eid: string): Promise<GateRecord[]> {
    return gates.listGates(this.b.ctx, eid);
  }

  listTicketTypes(eid: string): Promise<TicketTypeRules[]> {
    return gates.listTicketTypes(this.b.ctx, eid);
  }

  putTicketType(type: TicketTypeRecord): Promise<void> {
    return ticketTypes.putTicketType(this.b.ctx, type);
  }

  deleteTicketType(eid: string, typeKey: string): Promise<boolean> {
    return ticketTypes.deleteTicketType(this.b.ctx, eid, typeKey);
  }

  listTicketLabels(eid: string): Promise<string[]> {
    return ticketTypes.listTicketLabels(this.b.ctx, eid);
  }

  deleteGate(eid: string, gateId: string): Promise<boolean> {
    return gates.deleteGate(this.b.ctx, eid, gateId);
  }

  countTickets(eid: string): Promise<EventCounters> {
    return countTickets(this.b.ctx, eid);
  }
}
