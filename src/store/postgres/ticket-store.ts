import type { Page, ReissueResult, TicketRecord } from '../store.ts';
import type { Tx } from './queries.ts';
import type { TicketChange } from '../ticket-notes.ts';
import type { HolderMatch } from '../holder-search.ts';
import * as tickets from './tickets.ts';
import * as ticketNotes from './ticket-notes.ts';
import type pg from 'pg';
import type { TicketStore } from '../ticket-store.ts';

/** Tickets: issuing, reading, finding, revoking, reissuing, their gate notes and email. (PostgreSQL: see ../ticket-store.ts.) */
export class PostgresTicketStore implements TicketStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  createTickets(list: TicketRecord[]): Promise<TicketRecord[]> {
    return tickets.createTickets(this.b.tx, list);
  }

  getTicket(tid: string): Promise<TicketRecord | null> {
    return tickets.getTicket(this.b.pool, tid);
  }

  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return tickets.listTickets(this.b.pool, eid, limit, after);
  }

  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return tickets.searchTickets(this.b.pool, eid, query, limit, after);
  }

  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]> {
    return tickets.findHolders(this.b.pool, eid, query, limit);
  }

  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return tickets.revokeTicket(this.b.tx, tid, at, reason);
  }

  reissueTicket(tid: string, previous: string, next: string, jti: string | null, at: string): Promise<ReissueResult> {
    return tickets.reissueTicket(this.b.tx, tid, previous, next, jti, at);
  }

  updateTicket(tid: string, change: TicketChange, at: string): Promise<TicketRecord | null> {
    return ticketNotes.updateTicket(this.b.tx, tid, change, at);
  }
}
