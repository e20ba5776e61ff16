import { deliveryStatus, deliveryView, queueTicketEmails } from '../../../domain/deliveries.ts';
import { requireEvent } from '../../../domain/events.ts';
import type { App, AppContext } from '../../context.ts';
import { listDeliveriesSchema, sendTicketsSchema } from '../../schemas/deliveries.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** Tickets reach their holders by email: queueing them, and each one's delivery. */
export function adminDeliveryRoutes(app: App, ctx: AppContext): void {
  app.post('/admin/v1/events/:eid/deliveries', { schema: sendTicketsSchema }, async (request, reply) => {
    const answer = await queueTicketEmails(ctx.store, ctx.clock, ctx.mail.configured, request.params.eid, request.body);
    request.log.info({ eid: request.params.eid, queued: answer.queued }, 'ticket emails queued');
    if (answer.queued > 0) ctx.mail.wake();
    return reply.status(202).send(answer);
  });

  app.get('/admin/v1/events/:eid/deliveries', { schema: listDeliveriesSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query, CURSOR.ticket);
    const [page, counts] = await Promise.all([
      ctx.store.deliveries.listDeliveries(event.eid, deliveryStatus(request.query.status), limit, cursor),
      ctx.store.deliveries.countDeliveries(event.eid),
    ]);
    return { ...pageAnswer('deliveries', page.items.map(deliveryView), page.next_cursor), counts };
  });
}
