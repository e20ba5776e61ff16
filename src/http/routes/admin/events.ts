import { createEvent, eventView, requireEvent } from '../../../domain/events.ts';
import type { App, AppContext } from '../../context.ts';
import { createEventSchema, getEventSchema, listEventsSchema } from '../../schemas/admin.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** Events: create, list, read with counters. */
export function adminEventRoutes(app: App, ctx: AppContext): void {
  app.post('/admin/v1/events', { schema: createEventSchema }, async (request, reply) => {
    const event = await createEvent(ctx.store, ctx.clock, request.body);
    request.log.info({ eid: event.eid }, 'event created');
    return reply.status(201).send(eventView(event));
  });

  app.get('/admin/v1/events', { schema: listEventsSchema }, async (request) => {
    const { limit, cursor } = pageParams(request.query, CURSOR.event);
    const page = await ctx.store.listEvents(limit, cursor);
    return pageAnswer('events', page.items.map(eventView), page.next_cursor);
  });

  app.get('/admin/v1/events/:eid', { schema: getEventSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    return { ...eventView(event), counters: await ctx.store.countTickets(event.eid) };
  });
}
