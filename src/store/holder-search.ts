import { likeLiteral } from './console-queries.ts';
import { TICKET_COLUMNS_SQL, toTicket } from './rows.ts';
import { searchKey } from './search-key.ts';
import type { TicketRecord } from './ticket-records.ts';

/** A ticket found by its holder's name, with whether the holder is inside now. */
export interface HolderMatch {
  ticket: TicketRecord;
  inside: boolean;
}

/**
 * Finding a holder at the gate (params: eid, contains, exact, prefix, word start, limit; see
 * `holderPatterns`): the event's tickets whose holder name contains the query's search key, best
 * matches first: the whole name, then a name starting with the query, then one with a word starting
 * with it, then one that only contains it; within each, shorter names first (the closer match), then
 * by key and tid, so that both stores answer in one order. The filter walks the event's search index
 * (eid, tid, search_name) as the console's search does; only matches read their row and presence.
 */
export const FIND_HOLDERS_SQL = `
  SELECT ${TICKET_COLUMNS_SQL}, (SELECT p.inside FROM presence p WHERE p.tid = tickets.tid) AS inside
  FROM tickets
  WHERE eid = ? AND search_name LIKE ? ESCAPE '\\'
  ORDER BY CASE
      WHEN search_name = ? THEN 0
      WHEN search_name LIKE ? ESCAPE '\\' THEN 1
      WHEN search_words LIKE ? ESCAPE '\\' THEN 2
      ELSE 3
    END, length(search_name), search_name, tid
  LIMIT ?`;

/** The parameters of `FIND_HOLDERS_SQL` after the eid, but the limit: case, accents and punctuation ignored. */
export function holderPatterns(query: string): [contains: string, exact: string, prefix: string, word: string] {
  const key = searchKey(query);
  const literal = likeLiteral(key);
  return [`%${literal}%`, key, `${literal}%`, `% ${literal}%`];
}

/** A row of `FIND_HOLDERS_SQL` as either database answers it (SQLite: 0/1, no presence row: null). */
export function toHolderMatch(row: Record<string, unknown>): HolderMatch {
  const { inside, ...ticket } = row;
  return { ticket: toTicket(ticket as unknown as TicketRecord), inside: inside === true || inside === 1 };
}
