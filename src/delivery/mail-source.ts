/**
 * What a claimed delivery's email is made of, read when it is sent (so a holder's name changed since it
 * was queued is the one written): the ticket, its event, its holder link and its PDF. A ticket revoked
 * or gone meanwhile is not sent.
 */
import type { EventRecord, Store, TicketRecord } from '../store/store.ts';
import type { MailSource } from './mail-worker.ts';

export interface MailSourceDeps {
  store: Store;
  /** MAIL_FROM. */
  from: string;
  /** The ticket's holder page, `<BASE_URL>/t/<holder_token>`. */
  holderUrl: (tid: string) => string | null;
  /** The ticket's PDF, as `/t/<holder_token>/ticket.pdf` serves it. */
  renderPdf: (ticket: TicketRecord, event: EventRecord) => Promise<Buffer>;
}

export function ticketMailSource(deps: MailSourceDeps): MailSource {
  return async (claimed) => {
    const ticket = await deps.store.tickets.getTicket(claimed.tid);
    const event = ticket === null ? null : await deps.store.events.getEvent(ticket.eid);
    if (ticket === null || event === null) return { refused: 'the ticket no longer exists' };
    if (ticket.revoked_at !== null) return { refused: 'the ticket was revoked before its email was sent' };
    const holderUrl = deps.holderUrl(ticket.tid);
    if (holderUrl === null) return { refused: 'the ticket has no holder page' };
    return {
      to: claimed.email,
      from: deps.from,
      eventName: event.name,
      holderName: ticket.holder_name,
      holderUrl,
      pdf: await deps.renderPdf(ticket, event),
    };
  };
}
