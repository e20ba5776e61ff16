import type { Page, ReissueResult, TicketRecord } from '../store.ts';
import { SqliteContext } from './context.ts';
import {
  createTickets,
  findHolders,
  getTicket,
  listTickets,
  reissueTicket,
  revokeTicket,
  searchTickets,
} from './tickets.ts';
import type { HolderMatch } from '../holder-search.ts';
import { updateTicket } from './ticket-notes.ts';
import type { TicketChange } from '../ticket-notes.ts';
import type { TicketStore } from '../ticket-store.ts';

/** Tickets: issuing, reading, finding, revoking, reissuing, their gate notes and email. (Sqlite: see ../ticket-store.ts.) */
export class SqliteTicketStore implements TicketStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  createTickets(tickets: TicketRecord[]): Promise<TicketRecord[]> {
    return createTickets(this.b.ctx, tickets);
  }

  getTicket(tid: string): Promise<TicketRecord | null> {
    return getTicket(this.b.ctx, tid);
  }

  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return listTickets(this.b.ctx, eid, limit, after);
  }

  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return searchTickets(this.b.ctx, eid, query, limit, after);
  }

  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]> {
    return findHolders(this.b.ctx, eid, query, limit);
  }

  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return revokeTicket(this.b.ctx, tid, at, reason);
  }

  reissueTicket(tid: string, prev: string, next: string, jti: string | null, at: string): Promise<ReissueResult> {
    return reissueTicket(this.b.ctx, tid, prev, next, jti, at);
  }

  updateTicket(tid: string, change: TicketChange, at: string): Promise<TicketRecord | null> {
    return updateTicket(this.b.ctx, tid, change, at);
  }
}
