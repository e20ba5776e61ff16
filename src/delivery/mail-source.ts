/**
 * What a claimed delivery's email is made of, read when it is sent (so a holder's name changed since it
 * was queued is the one written): the ticket as its holder page shows it, the page's link, and the
 * steps of the same PDF as `/t/<holder_token>/ticket.pdf`. The PDF and its QR code are drawn, and the
 * whole message built around it, on the mail's own thread (so sending never takes the threads that
 * answer holders, and the event loop only reads the ticket). A ticket revoked or gone meanwhile is not sent.
 */
import type { Clock } from '../domain/clock.ts';
import type { HolderLinks } from '../domain/holder-links.ts';
import { toStored } from '../domain/time.ts';
import { findHolderTicket } from '../holder/holder-ticket.ts';
import { ticketPdfSteps } from '../holder/pdf-layout.ts';
import { ticketPdfTitle } from '../holder/ticket-pdf.ts';
import type { Store } from '../store/store.ts';
import { ticketMailParts } from './mail-message.ts';
import type { MailSource } from './mail-worker.ts';

export interface MailSourceDeps {
  store: Store;
  clock: Clock;
  /** MAIL_FROM. */
  from: string;
  links: HolderLinks;
}

export function ticketMailSource(deps: MailSourceDeps): MailSource {
  return async (claimed) => {
    const token = deps.links.token(claimed.tid);
    const holderUrl = deps.links.url(claimed.tid);
    if (token === null || holderUrl === null) return { refused: 'the ticket has no holder page' };
    const holder = await findHolderTicket(deps.store, deps.links, token, toStored(deps.clock.now()));
    if (holder === null) return { refused: 'the ticket no longer exists' };
    if (holder.ticket.revoked_at !== null) return { refused: 'the ticket was revoked before its email was sent' };
    const parts = ticketMailParts({
      to: claimed.email,
      from: deps.from,
      eventName: holder.event.name,
      holderName: holder.ticket.holder_name,
      holderUrl,
    });
    return { title: ticketPdfTitle(holder), steps: ticketPdfSteps(holder), parts };
  };
}
