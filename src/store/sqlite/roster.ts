import { type HolderMatch, toHolderMatch } from '../holder-search.ts';
import { BY_SHORT_CODE_SQL, ORDER_SQL, ROSTER_PAGE_SQL, rosterPage, rosterParams } from '../roster-queries.ts';
import type { RosterPosition, RosterStore, RosterTicket } from '../roster-store.ts';
import { type Row, toTicket } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import type { SqliteContext } from './context.ts';

/** The roster, short codes and orders (SQLite: see ../roster-store.ts). */
export class SqliteRosterStore implements RosterStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  async listRoster(
    eid: string,
    after: RosterPosition | null,
    limit: number,
  ): Promise<{ items: RosterTicket[]; has_more: boolean }> {
    const rows = this.b.ctx.all<Row>(ROSTER_PAGE_SQL, eid, ...rosterParams(after, limit));
    // What a scanner reads must already be on disk (every commit it could see asked for its fsync).
    await this.b.ctx.walSync?.settled();
    return rosterPage(rows, limit);
  }

  async findByShortCode(eid: string, code: string): Promise<TicketRecord | null> {
    const ticket = toTicket(this.b.ctx.one<TicketRecord>(BY_SHORT_CODE_SQL, eid, code));
    await this.b.ctx.walSync?.settled();
    return ticket;
  }

  async listOrder(eid: string, orderRef: string, limit: number): Promise<HolderMatch[]> {
    const rows = this.b.ctx.all<Row>(ORDER_SQL, eid, orderRef, limit).map(toHolderMatch);
    await this.b.ctx.walSync?.settled();
    return rows;
  }
}
