import { rulesFor } from '@ticket-issuer/protocol';
import type { HolderLinks } from '../domain/holder-links.ts';
import type { EventRecord, Store, TicketRecord } from '../store/store.ts';
import { holderWords, type HolderWords } from './words.ts';

/** A ticket as its holder sees it: the words, and the token its QR code carries (none once revoked). */
export interface HolderTicket {
  ticket: TicketRecord;
  event: EventRecord;
  words: HolderWords;
  /** The current ticket token, or null for a revoked ticket (its page shows no QR code). */
  qrToken: string | null;
}

/** The ticket a holder token stands for, in words; null when the token names no ticket. */
export async function findHolderTicket(
  store: Store,
  links: HolderLinks,
  holderToken: string,
  now: string,
): Promise<HolderTicket | null> {
  const tid = links.tidOf(holderToken);
  return tid === null ? null : holderTicket(store, tid, now);
}

/** A ticket as its holder sees it at `now` (what its page, its PDF and its email say); null if unknown. */
export async function holderTicket(store: Store, tid: string, now: string): Promise<HolderTicket | null> {
  const ticket = await store.tickets.getTicket(tid);
  if (!ticket) return null;
  const [event, types] = await Promise.all([
    store.events.getEvent(ticket.eid),
    store.events.listTicketTypes(ticket.eid),
  ]);
  if (!event) return null;
  return {
    ticket,
    event,
    words: holderWords(ticket, event, rulesFor(types, ticket.ticket_type), now),
    qrToken: ticket.revoked_at === null ? ticket.ticket_token : null,
  };
}
