import { arrivalsView } from '../../../domain/arrivals.ts';
import { createEvent, eventView, requireEvent, updateEventSettings } from '../../../domain/events.ts';
import { deleteGate, gateView, occupancyView, putGate } from '../../../domain/gates.ts';
import { listedEvents } from '../../authorization.ts';
import type { App, AppContext } from '../../context.ts';
import {
  arrivalsSchema,
  createEventSchema,
  deleteGateSchema,
  getEventSchema,
  listEventsSchema,
  listGatesSchema,
  occupancySchema,
  putGateSchema,
  updateEventSchema,
} from '../../schemas/admin.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** Events: create, list, read with counters, change settings; their gates. */
export function adminEventRoutes(app: App, ctx: AppContext): void {
  app.post('/admin/v1/events', { schema: createEventSchema }, async (request, reply) => {
    const event = await createEvent(ctx.store, ctx.clock, request.body);
    request.log.info({ eid: event.eid }, 'event created');
    return reply.status(201).send(eventView(event));
  });

  app.get('/admin/v1/events', { schema: listEventsSchema }, async (request) => {
    const { limit, cursor } = pageParams(request.query, CURSOR.event);
    // A person limited to some events lists only theirs (the role table's `event.list`).
    const page = await ctx.store.events.listEvents(limit, cursor, listedEvents(request));
    return pageAnswer('events', page.items.map(eventView), page.next_cursor);
  });

  app.get('/admin/v1/events/:eid', { schema: getEventSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    return { ...eventView(event), counters: await ctx.store.events.countTickets(event.eid) };
  });

  app.patch('/admin/v1/events/:eid', { schema: updateEventSchema }, async (request) => {
    const event = await updateEventSettings(ctx.store, request.params.eid, request.body);
    ctx.eventSettings.forget(event.eid);
    request.log.info({ eid: event.eid, ...request.body }, 'event settings changed');
    return eventView(event);
  });

  app.get('/admin/v1/events/:eid/gates', { schema: listGatesSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    return { gates: (await ctx.store.events.listGates(event.eid)).map(gateView) };
  });

  app.put('/admin/v1/events/:eid/gates/:gate_id', { schema: putGateSchema }, async (request) => {
    const { eid, gate_id } = request.params;
    const gate = await putGate(ctx.store, ctx.clock, eid, gate_id, request.body);
    request.log.info({ eid, gate_id, admits: gate.admits }, 'gate declared');
    return gateView(gate);
  });

  app.delete('/admin/v1/events/:eid/gates/:gate_id', { schema: deleteGateSchema }, async (request, reply) => {
    const { eid, gate_id } = request.params;
    await deleteGate(ctx.store, eid, gate_id);
    request.log.info({ eid, gate_id }, 'gate removed');
    return reply.status(204).send(null);
  });

  app.get('/admin/v1/events/:eid/occupancy', { schema: occupancySchema }, async (request) =>
    occupancyView(ctx.store, request.params.eid, ctx.clock.now()),
  );

  app.get('/admin/v1/events/:eid/arrivals', { schema: arrivalsSchema }, async (request) =>
    arrivalsView(ctx.store, request.params.eid),
  );
}
