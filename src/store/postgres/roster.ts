import type pg from 'pg';
import { type HolderMatch, toHolderMatch } from '../holder-search.ts';
import { BY_SHORT_CODE_SQL, ORDER_SQL, ROSTER_PAGE_SQL, rosterPage, rosterParams } from '../roster-queries.ts';
import type { RosterPosition, RosterStore, RosterTicket } from '../roster-store.ts';
import type { Row } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import { all, numbered, one } from './queries.ts';

const ROSTER_PAGE = numbered(ROSTER_PAGE_SQL);
const BY_SHORT_CODE = numbered(BY_SHORT_CODE_SQL);
const ORDER = numbered(ORDER_SQL);

/** The roster, short codes and orders (PostgreSQL: see ../roster-store.ts); each read is one statement. */
export class PostgresRosterStore implements RosterStore {
  constructor(private readonly b: { pool: pg.Pool }) {}

  async listRoster(
    eid: string,
    after: RosterPosition | null,
    limit: number,
  ): Promise<{ items: RosterTicket[]; has_more: boolean }> {
    return rosterPage(await all<Row>(this.b.pool, ROSTER_PAGE, [eid, ...rosterParams(after, limit)]), limit);
  }

  findByShortCode(eid: string, code: string): Promise<TicketRecord | null> {
    return one<TicketRecord>(this.b.pool, BY_SHORT_CODE, [eid, code]);
  }

  async listOrder(eid: string, orderRef: string, limit: number): Promise<HolderMatch[]> {
    return (await all<Row>(this.b.pool, ORDER, [eid, orderRef, limit])).map(toHolderMatch);
  }
}
