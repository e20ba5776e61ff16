import type { HolderMatch } from './holder-search.ts';
import type { Page } from './records.ts';
import type { ReissueResult, TicketRecord } from './ticket-records.ts';
import type { TicketChange } from './ticket-notes.ts';

/** Tickets: issuing, reading, finding, revoking, reissuing, their gate notes and email. Every method is one transaction; each says what it guarantees. */
export interface TicketStore {
  /**
   * Inserts the tickets, all or none, except those whose `external_id` their event already holds:
   * answers the event's existing tickets of those instead (none are created again). Concurrent calls
   * with one external_id create its ticket once; a tid that exists already fails the whole call.
   */
  createTickets(tickets: TicketRecord[]): Promise<TicketRecord[]>;
  /** The ticket, or null. */
  getTicket(tid: string): Promise<TicketRecord | null>;
  /** The event's tickets in tid order (time-ordered to the millisecond), a page at a time (cursor: the last tid seen). */
  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>>;
  /**
   * The event's tickets whose holder name contains `query` ignoring case, accents and punctuation
   * (both compared by their `searchKey`), or whose tid starts with it, in tid order, a page at a time
   * (cursor: the last tid seen). LIKE wildcards are literal.
   */
  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>>;
  /**
   * Finding a holder at the gate: at most `limit` of the event's tickets whose holder name contains
   * `query` ignoring case, accents and punctuation (both compared by their `searchKey`), best matches
   * first (see FIND_HOLDERS_SQL), each with whether its holder is inside. LIKE wildcards are literal.
   */
  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]>;
  /**
   * Revokes the ticket once (a second call keeps the first time and reason); null if unknown.
   * The first revocation appends a `revoked` change to the event's feed.
   */
  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null>;
  /**
   * Replaces the ticket's token if it is still `previousToken` and the ticket is neither revoked nor
   * used, and appends a `token_superseded` change naming `supersededJti`; otherwise refuses.
   */
  reissueTicket(
    tid: string,
    previousToken: string,
    nextToken: string,
    supersededJti: string | null,
    at: string,
  ): Promise<ReissueResult>;
  /**
   * Changes the ticket's gate notes and email (absent fields stay) and, when the notes differ from what
   * it held, appends a `ticket_notes` change carrying the new notes, in one transaction; null if
   * unknown. Concurrent changes of one ticket apply one after the other: the feed's last one holds its
   * notes. The email is in no change (it is no scanner's business).
   */
  updateTicket(tid: string, change: TicketChange, at: string): Promise<TicketRecord | null>;
}
