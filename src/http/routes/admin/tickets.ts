import type { FastifyRequest } from 'fastify';
import { qrCodes } from '../../qr-codes.ts';
import { invalidRequest, IssuerError } from '../../../domain/errors.ts';
import { requireEvent } from '../../../domain/events.ts';
import { changeTicketNotes } from '../../../domain/ticket-notes.ts';
import { adminTicketView } from '../../../domain/ticket-state.ts';
import { deliverySummaryView } from '../../../domain/deliveries.ts';
import { issueTickets, type NewTicket, reissueTicket } from '../../../domain/tickets.ts';
import { toStored } from '../../../domain/time.ts';
import type { TicketRecord } from '../../../store/store.ts';
import { allows } from '../../authorization.ts';
import type { App, AppContext } from '../../context.ts';
import {
  getTicketSchema,
  issueTicketsSchema,
  listTicketsSchema,
  qrPngSchema,
  qrSvgSchema,
  reissueTicketSchema,
  revokeTicketSchema,
} from '../../schemas/admin.ts';
import { updateTicketSchema } from '../../schemas/admin-ticket-notes.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** The single-ticket form needs both fields; the bulk form is `{"tickets": [...]}` alone. */
function ticketSpecs(body: Partial<NewTicket> & { tickets?: NewTicket[] }): { specs: NewTicket[]; bulk: boolean } {
  if (body.tickets !== undefined) {
    const single = (
      [
        'holder_name',
        'ticket_type',
        'expires_at',
        'external_id',
        'valid_from',
        'attention',
        'checkin_text',
        'email',
        'order_ref',
      ] as const
    ).some((field) => body[field] !== undefined);
    if (single) {
      throw invalidRequest('send either one ticket or {"tickets": [...]}, not both', [
        { field: 'tickets', problem: 'not allowed beside single-ticket fields' },
      ]);
    }
    return { specs: body.tickets, bulk: true };
  }
  const missing = (['holder_name', 'ticket_type'] as const).filter((f) => body[f] === undefined);
  if (missing.length > 0) {
    throw invalidRequest(
      `missing ${missing.join(', ')}`,
      missing.map((field) => ({ field, problem: 'required' })),
    );
  }
  return { specs: [body as NewTicket], bulk: false };
}

/** Tickets: issue (one or many), list and search, read, change the gate notes, revoke, reissue, QR code. */
export function adminTicketRoutes(app: App, ctx: AppContext): void {
  const now = () => toStored(ctx.clock.now());
  /**
   * A ticket as the request's principal may see it: its token, email and holder link only for those
   * who may read tokens (not a viewer).
   */
  const ticketViewOf = (request: FastifyRequest, ticket: TicketRecord, at: string) =>
    adminTicketView(ticket, at, allows(request, 'ticket_token.read'), ctx.holderLinks.url(ticket.tid));
  /** The tickets' views, each with its email's delivery (one read for them all). */
  const ticketViews = async (request: FastifyRequest, tickets: TicketRecord[], at: string) => {
    const deliveries = await ctx.store.deliveries.deliverySummaries(tickets.map((t) => t.tid));
    return tickets.map((t) => ({
      ...ticketViewOf(request, t, at),
      delivery: deliverySummaryView(deliveries.get(t.tid)),
    }));
  };
  const ticketView = async (request: FastifyRequest, ticket: TicketRecord, at: string) =>
    (await ticketViews(request, [ticket], at))[0]!;
  const requireTicket = async (tid: string): Promise<TicketRecord> => {
    const ticket = await ctx.store.tickets.getTicket(tid);
    if (!ticket) throw new IssuerError('NOT_FOUND', 'no ticket has this tid');
    return ticket;
  };

  app.post('/admin/v1/events/:eid/tickets', { schema: issueTicketsSchema }, async (request, reply) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { specs, bulk } = ticketSpecs(request.body);
    const deps = { store: ctx.store, clock: ctx.clock, signer: ctx.signer, issuer: ctx.config.baseUrl };
    const { created, skipped } = await issueTickets(deps, event.eid, specs, bulk);
    request.log.info({ eid: event.eid, count: created.length, skipped: skipped.length }, 'tickets issued');
    // Nothing created (every external_id known already) is 200, as a read of what exists.
    const status = created.length > 0 ? 201 : 200;
    const at = now();
    if (!bulk) return reply.status(status).send(await ticketView(request, created[0] ?? skipped[0]!.ticket, at));
    return reply.status(status).send({
      tickets: await ticketViews(request, created, at),
      skipped: skipped.map((s) => ({ external_id: s.external_id, tid: s.ticket.tid })),
    });
  });

  app.get('/admin/v1/events/:eid/tickets', { schema: listTicketsSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query, CURSOR.ticket);
    const query = request.query.q?.trim() ?? '';
    // Searched in the store, a page at a time: an event may hold far more tickets than a browser should load.
    const page =
      query === ''
        ? await ctx.store.tickets.listTickets(event.eid, limit, cursor)
        : await ctx.store.tickets.searchTickets(event.eid, query, limit, cursor);
    const at = now();
    return pageAnswer('tickets', await ticketViews(request, page.items, at), page.next_cursor);
  });

  app.get('/admin/v1/tickets/:tid', { schema: getTicketSchema }, async (request) =>
    ticketView(request, await requireTicket(request.params.tid), now()),
  );

  app.patch('/admin/v1/tickets/:tid', { schema: updateTicketSchema }, async (request) => {
    const ticket = await changeTicketNotes(ctx.store, ctx.clock, request.params.tid, request.body);
    request.log.info({ tid: ticket.tid, attention: ticket.attention }, 'ticket notes changed');
    return ticketView(request, ticket, now());
  });

  app.post('/admin/v1/tickets/:tid/revoke', { schema: revokeTicketSchema }, async (request) => {
    const ticket = await ctx.store.tickets.revokeTicket(request.params.tid, now(), request.body.reason ?? null);
    if (!ticket) throw new IssuerError('NOT_FOUND', 'no ticket has this tid');
    request.log.info({ tid: ticket.tid }, 'ticket revoked');
    return ticketView(request, ticket, now());
  });

  app.post('/admin/v1/tickets/:tid/reissue', { schema: reissueTicketSchema }, async (request) => {
    const deps = { store: ctx.store, clock: ctx.clock, signer: ctx.signer, issuer: ctx.config.baseUrl };
    const ticket = await reissueTicket(deps, request.params.tid, request.body.jti);
    request.log.info({ tid: ticket.tid }, 'ticket reissued');
    return ticketView(request, ticket, now());
  });

  app.get('/admin/v1/tickets/:tid/qr.svg', { schema: qrSvgSchema }, async (request, reply) => {
    const ticket = await requireTicket(request.params.tid);
    const QRCode = await qrCodes();
    const svg = await QRCode.toString(ticket.ticket_token, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    // A QR image is not JSON: it bypasses the serializer's schema.
    return reply.type('image/svg+xml').send(svg as never);
  });

  app.get('/admin/v1/tickets/:tid/qr.png', { schema: qrPngSchema }, async (request, reply) => {
    const ticket = await requireTicket(request.params.tid);
    const QRCode = await qrCodes();
    const png = await QRCode.toBuffer(ticket.ticket_token, {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 2,
      scale: 6,
    });
    return reply.type('image/png').send(png as never);
  });
}
