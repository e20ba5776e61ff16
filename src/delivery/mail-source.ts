/**
 * What a claimed delivery's email is made of, read when it is sent (so a holder's name changed since it
 * was queued is the one written): the ticket as its holder page shows it, the page's link, and the
 * same PDF as `/t/<holder_token>/ticket.pdf`, drawn with its QR code, and the whole message built
 * around it, on a pool of the mail's own (so sending never takes the threads that answer holders, and
 * the event loop only reads the ticket). A ticket revoked or gone meanwhile is not sent.
 */
import type { Clock } from '../domain/clock.ts';
import type { HolderLinks } from '../domain/holder-links.ts';
import { toStored } from '../domain/time.ts';
import { findHolderTicket, type HolderTicket } from '../holder/holder-ticket.ts';
import type { MailParts, PdfPool } from '../holder/pdf-pool.ts';
import { ticketPdfMail } from '../holder/ticket-pdf.ts';
import type { Store } from '../store/store.ts';
import { ticketMailParts } from './mail-message.ts';
import type { MailSource } from './mail-worker.ts';

export interface MailSourceDeps {
  store: Store;
  clock: Clock;
  /** MAIL_FROM. */
  from: string;
  links: HolderLinks;
  pdfs: PdfPool;
}

export function ticketMailSource(deps: MailSourceDeps): MailSource {
  // The pool refuses a draw while its thread is busy: the worker's sends take turns for it instead.
  let turn: Promise<unknown> = Promise.resolve();
  const build = (holder: HolderTicket, parts: MailParts) => {
    const drawn = turn.then(() => ticketPdfMail(deps.pdfs, holder, parts));
    turn = drawn.catch(() => undefined);
    return drawn;
  };
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
    return build(holder, parts);
  };
}
