/**
 * What a claimed delivery's email is made of, read when it is sent (so a holder's name changed since it
 * was queued is the one written): the ticket as its holder page shows it, the page's link, and the
 * same PDF as `/t/<holder_token>/ticket.pdf`, drawn on a pool of the mail's own (so sending never takes
 * the threads that answer holders). A ticket revoked or gone meanwhile is not sent.
 */
import type { Clock } from '../domain/clock.ts';
import type { HolderLinks } from '../domain/holder-links.ts';
import { toStored } from '../domain/time.ts';
import { findHolderTicket } from '../holder/holder-ticket.ts';
import type { PdfPool } from '../holder/pdf-pool.ts';
import { ticketPdf } from '../holder/ticket-pdf.ts';
import type { Store } from '../store/store.ts';
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
  const draw = (holder: Parameters<typeof ticketPdf>[1]) => {
    const drawn = turn.then(() => ticketPdf(deps.pdfs, holder));
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
    return {
      to: claimed.email,
      from: deps.from,
      eventName: holder.event.name,
      holderName: holder.ticket.holder_name,
      holderUrl,
      pdf: await draw(holder),
    };
  };
}
