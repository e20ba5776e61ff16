import type { FastifyReply } from 'fastify';
import { IssuerError } from '../../domain/errors.ts';
import { toStored } from '../../domain/time.ts';
import { findHolderTicket } from '../../holder/holder-ticket.ts';
import { busyPage, HOLDER_PAGE_HEADERS, holderPage, unknownTicketPage } from '../../holder/page.ts';
import { HolderQrCodes } from '../../holder/qr.ts';
import { ticketPdf, ticketPdfFileName } from '../../holder/ticket-pdf.ts';
import type { App, AppContext } from '../context.ts';

interface HolderParams {
  token: string;
}

/** HTML pages, not API operations: left out of the API reference. */
const hidden = { schema: { hide: true } };

/** The holder's own page of their ticket (`/t/<holder token>`): no sign-in; the link is the credential. */
export function holderRoutes(app: App, ctx: AppContext): void {
  const find = (token: string) => findHolderTicket(ctx.store, ctx.holderLinks, token, toStored(ctx.clock.now()));
  const notFound = (reply: FastifyReply) =>
    reply.status(404).headers(HOLDER_PAGE_HEADERS).type('text/html; charset=utf-8').send(unknownTicketPage());
  const qrCodes = new HolderQrCodes(ctx.pdfs);
  /** The busy page (503, Retry-After) when every thread that draws a QR code is busy; any other error goes on. */
  const busy = (error: unknown, reply: FastifyReply) => {
    if (!(error instanceof IssuerError) || error.code !== 'UNAVAILABLE') throw error;
    const seconds = Number(error.details.retry_after_seconds ?? 1);
    return reply
      .status(503)
      .headers({ ...HOLDER_PAGE_HEADERS, 'retry-after': String(seconds) })
      .type('text/html; charset=utf-8')
      .send(busyPage(seconds));
  };

  app.get<{ Params: HolderParams }>('/t/:token', hidden, async (request, reply) => {
    const holder = await find(request.params.token);
    if (holder === null) return notFound(reply);
    const base = `/t/${encodeURIComponent(request.params.token)}`;
    let qr: string | null = null;
    try {
      if (holder.qrToken !== null) qr = await qrCodes.svg(holder.qrToken);
    } catch (error) {
      return busy(error, reply);
    }
    const page = await holderPage(
      holder,
      qr,
      { pdf: `${base}/ticket.pdf`, applePass: `${base}/pass.pkpass` },
      ctx.wallets,
    );
    return reply.headers(HOLDER_PAGE_HEADERS).type('text/html; charset=utf-8').send(page);
  });

  app.get<{ Params: HolderParams }>('/t/:token/ticket.pdf', hidden, async (request, reply) => {
    const holder = await find(request.params.token);
    if (holder === null) return notFound(reply);
    const pdf = await ticketPdf(ctx.pdfs, holder);
    return reply
      .headers({ ...HOLDER_PAGE_HEADERS, 'content-disposition': `attachment; filename="${ticketPdfFileName(holder)}"` })
      .type('application/pdf')
      .send(pdf);
  });
}
