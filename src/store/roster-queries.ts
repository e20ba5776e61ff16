import { type Row, TICKET_COLUMNS_SQL, toTicket } from './rows.ts';
import type { RosterPosition, RosterTicket } from './roster-store.ts';
import type { TicketRecord } from './ticket-records.ts';

/** The event's tickets after a roster position (params: eid, version, tid, limit), on its index. */
export const ROSTER_PAGE_SQL = `SELECT ${TICKET_COLUMNS_SQL}, roster_version FROM tickets
  WHERE eid = ? AND (roster_version, tid) > (?, ?) ORDER BY roster_version, tid LIMIT ?`;

/** The event's ticket with a short code (params: eid, code). */
export const BY_SHORT_CODE_SQL = `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE eid = ? AND short_code = ?`;

/** The event's tickets of one order with whether each holder is inside (params: eid, order_ref, limit). */
export const ORDER_SQL = `SELECT ${TICKET_COLUMNS_SQL},
    (SELECT p.inside FROM presence p WHERE p.tid = tickets.tid) AS inside
  FROM tickets WHERE eid = ? AND order_ref = ? ORDER BY tid LIMIT ?`;

/** The parameters of ROSTER_PAGE_SQL after the eid: from the start, the position before every ticket. */
export const rosterParams = (after: RosterPosition | null, limit: number): unknown[] => [
  after?.version ?? -1,
  after?.tid ?? '',
  limit + 1,
];

/** A page of the roster from `limit + 1` rows of ROSTER_PAGE_SQL (PostgreSQL's BIGINT arrives as a string). */
export function rosterPage(rows: Row[], limit: number): { items: RosterTicket[]; has_more: boolean } {
  return {
    items: rows.slice(0, limit).map((row) => {
      const { roster_version: version, ...ticket } = row;
      const record = toTicket(ticket as unknown as TicketRecord);
      return { ticket: record, position: { version: Number(version), tid: record.tid } };
    }),
    has_more: rows.length > limit,
  };
}
