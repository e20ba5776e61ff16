import type { HolderMatch } from './holder-search.ts';
import type { TicketRecord } from './ticket-records.ts';

/** Where a ticket stands in its event's roster: the version its last change took, then its tid. */
export interface RosterPosition {
  version: number;
  tid: string;
}

/** A ticket as the roster lists it, with its position. */
export interface RosterTicket {
  ticket: TicketRecord;
  position: RosterPosition;
}

/**
 * What devices sync to find holders and groups offline, and resolve short codes by. Every method is
 * one read; each says what it guarantees.
 */
export interface RosterStore {
  /**
   * The event's tickets after `after` in roster order (version, then tid), at most `limit`. A ticket
   * comes again, at a later position, each time its name, type, order, notes or revocation change.
   * Versions commit in order (see the migrations' roster counters): a reader that saw a version has
   * every lower one, so a device following the positions misses no change, however late it committed.
   */
  listRoster(
    eid: string,
    after: RosterPosition | null,
    limit: number,
  ): Promise<{ items: RosterTicket[]; has_more: boolean }>;
  /** The event's ticket with this short code (its kept form, without the dash), or null. */
  findByShortCode(eid: string, code: string): Promise<TicketRecord | null>;
  /** The event's tickets of one order, in tid order, at most `limit`, each with whether its holder is inside. */
  listOrder(eid: string, orderRef: string, limit: number): Promise<HolderMatch[]>;
}
