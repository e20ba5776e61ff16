/**
 * The event report's reads (SQL shared by every backend, `?` placeholders; see report-migration.ts for
 * the indexes they read). What is kept as it happens is read as kept: the tickets per type
 * (`type_counts`) and the holders per event day (`day_holders`, see report-counts.ts), the gates'
 * entries and exits (`gate_counts`), the entries per minute (`arrival_counts`) and the exits and
 * re-entries per minute (`minute_counts`, see minute-counts.ts), all moved back by an annul. Annulled
 * entries never count: they left the kept counts, and the entry reads skip rows with `annulled_at`.
 */
import { toMinuteCounts } from './minute-counts.ts';
import { type Row, TICKET_COLUMNS_SQL, toTicket } from './rows.ts';
import type { MinuteMoves, TypeCounts } from './report-records.ts';
import type { ExportedTicket } from './report-store.ts';
import type { TicketRecord } from './ticket-records.ts';

/** Entries per minute of scan time (param: eid), from the kept arrivals (every gate together). */
export const ENTRIES_PER_MINUTE_SQL = `SELECT minute, SUM(entries) AS moves FROM arrival_counts
  WHERE eid = ? GROUP BY minute`;

/** Type rows as numbers (PostgreSQL answers counts as strings), in type order. */
export const toTypeCounts = (rows: Row[]): TypeCounts[] =>
  rows
    .map((row) => ({
      ticket_type: row.ticket_type as string,
      issued: Number(row.issued),
      revoked: Number(row.revoked),
      checked_in: Number(row.checked_in),
      no_show: Number(row.no_show),
    }))
    .sort((a, b) => (a.ticket_type < b.ticket_type ? -1 : a.ticket_type > b.ticket_type ? 1 : 0));

/** Day rows (DAY_HOLDERS_SQL) as each event day's holders. */
export const toDayHolders = (rows: Row[]): Map<string, number> =>
  new Map(rows.map((row) => [row.day as string, Number(row.holders)]));

/** Merges the per-minute reads (entries, and the kept exits and repeats) into one row per minute with any move, in time order. */
export function toMinuteMoves(entries: Row[], kept: Row[]): MinuteMoves[] {
  const minutes = new Map<string, MinuteMoves>();
  const at = (minute: string) => {
    const moves = minutes.get(minute) ?? { minute, entries: 0, exits: 0, repeats: 0 };
    minutes.set(minute, moves);
    return moves;
  };
  for (const row of entries) at(row.minute as string).entries += Number(row.moves);
  for (const row of toMinuteCounts(kept)) {
    const moves = at(row.minute);
    moves.exits += row.exits;
    moves.repeats += row.repeats;
  }
  return [...minutes.values()]
    .filter((m) => m.entries !== 0 || m.exits !== 0 || m.repeats !== 0)
    .sort((a, b) => (a.minute < b.minute ? -1 : a.minute > b.minute ? 1 : 0));
}

/**
 * A page of the event's tickets in tid order (params: eid, after, limit + 1), each with its counted
 * entries, its first one, and its last exit (the presence row keeps it across re-entries). The entry
 * reads use `entries_by_ticket`; the page is read first, so the cost is that of one page.
 */
export const EXPORT_TICKETS_SQL = `SELECT t.*, p.checked_out_at AS last_exit_at,
    (SELECT COUNT(*) FROM entries e WHERE e.tid = t.tid AND e.annulled_at IS NULL) AS entry_count,
    (SELECT MIN(e.scanned_at) FROM entries e WHERE e.tid = t.tid AND e.annulled_at IS NULL) AS first_entry_at
  FROM (SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE eid = ? AND tid > ? ORDER BY tid LIMIT ?) t
  LEFT JOIN presence p ON p.tid = t.tid
  ORDER BY t.tid`;

/** A row of EXPORT_TICKETS_SQL as an exported ticket. */
export function toExportedTicket(row: Row): ExportedTicket {
  const { last_exit_at, entry_count, first_entry_at, ...ticket } = row;
  return {
    ticket: toTicket(ticket as unknown as TicketRecord),
    entries: Number(entry_count),
    first_entry_at: (first_entry_at as string | null) ?? null,
    last_exit_at: (last_exit_at as string | null) ?? null,
  };
}
