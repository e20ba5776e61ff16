import { deleteTicketType, listTicketTypes, putTicketType, ticketTypeView } from '../../../domain/ticket-types.ts';
import type { App, AppContext } from '../../context.ts';
import { deleteTicketTypeSchema, listTicketTypesSchema, putTicketTypeSchema } from '../../schemas/ticket-types.ts';

/** An event's ticket types and their entry rules: declare, list (declared and found on tickets), remove. */
export function adminTicketTypeRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/ticket-types', { schema: listTicketTypesSchema }, async (request) => ({
    ticket_types: await listTicketTypes(ctx.store, request.params.eid),
  }));

  app.put('/admin/v1/events/:eid/ticket-types/:ticket_type', { schema: putTicketTypeSchema }, async (request) => {
    const { eid, ticket_type } = request.params;
    const type = await putTicketType(ctx.store, ctx.clock, eid, ticket_type, request.body ?? {});
    // This instance's check-ins see the new rules at once; other instances within the settings' second.
    ctx.eventSettings.forget(eid);
    request.log.info({ eid, ticket_type: type.ticket_type }, 'ticket type declared');
    return ticketTypeView(type, true);
  });

  app.delete(
    '/admin/v1/events/:eid/ticket-types/:ticket_type',
    { schema: deleteTicketTypeSchema },
    async (request, reply) => {
      const { eid, ticket_type } = request.params;
      await deleteTicketType(ctx.store, eid, ticket_type);
      ctx.eventSettings.forget(eid);
      request.log.info({ eid, ticket_type }, 'ticket type removed');
      return reply.status(204).send(null);
    },
  );
}
