import { ANCHOR, COLLIDED_WITH, DUPLICATE_OUTCOMES, IS_CONFLICT, KEPT_BY_KEY } from './conflicts.ts';
import type { Row } from './rows.ts';
import type { ArrivalCount, EventCounters, TicketRecord } from './store.ts';

/**
 * An event's counts, kept rather than counted (SQL shared by every backend, `?` placeholders): the
 * console reads them every 2 s, and at a 1,000,000-ticket event a count over the tickets or the scan
 * log would cost the store more at each refresh than all the check-ins of those 2 s. Each count moves
 * in the transaction of the change it counts:
 * - `event_counters`: tickets issued (createTickets), checked in once at least (a first entry), revoked
 *   (a first revocation), in conflict (the first conflicting duplicate of the ticket);
 * - `ticket_conflicts`: each ticket in conflict once, with its card's anchor (the entry its first
 *   conflicting duplicate collided with, or that duplicate itself: see conflicts.ts), which pages the
 *   conflicts report by index;
 * - `arrival_counts`: entries per event, minute of scan time and gate, which the arrivals chart reads.
 * On PostgreSQL the counter rows are written after the event's feed counter (change_counters), the
 * lock order of every writer.
 */

/** The event's counters (param: eid); no row yet reads as zeros. */
export const EVENT_COUNTERS_SQL = 'SELECT issued, checked_in, revoked, conflicts FROM event_counters WHERE eid = ?';

/** Adds to the event's counters (params: eid, issued, checked_in, revoked, conflicts). */
export const BUMP_COUNTERS_SQL = `INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
  VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (eid) DO UPDATE SET issued = event_counters.issued + excluded.issued,
    checked_in = event_counters.checked_in + excluded.checked_in,
    revoked = event_counters.revoked + excluded.revoked,
    conflicts = event_counters.conflicts + excluded.conflicts`;

/** What moves an event's counters: each count's change. */
export type CountsMoved = {
  issued?: number;
  checked_in?: number;
  revoked?: number;
  conflicts?: number;
};

/** The parameters of BUMP_COUNTERS_SQL. */
export const bumpValues = (eid: string, m: CountsMoved): unknown[] => [
  eid,
  m.issued ?? 0,
  m.checked_in ?? 0,
  m.revoked ?? 0,
  m.conflicts ?? 0,
];

/** Counters as numbers (PostgreSQL answers BIGINT as strings); zeros for an event without a row. */
export const toCounters = (row: Row | null): EventCounters => ({
  issued: Number(row?.issued ?? 0),
  checked_in: Number(row?.checked_in ?? 0),
  revoked: Number(row?.revoked ?? 0),
  conflicts: Number(row?.conflicts ?? 0),
});

/**
 * Records the tickets that scans just logged under some idempotency keys put in conflict (the conflicts
 * report's rule), each ticket once (params: eid, then the keys as `keysIn` reads them), with the card's
 * anchor: the entry the duplicate collided with, or the duplicate itself (a refused admission without
 * an entry before it). The scans are read by key (index `scans_by_key`), as the conflict messages are:
 * no grouping or order, which would make SQLite's planner (it keeps no statistics) read them by outcome
 * instead. A ticket's duplicates are logged in scan_id order under its row lock, so its first
 * conflicting duplicate has the smallest anchor (a later one collides with it, or with a later entry);
 * several in one statement (a batch, which holds first entries only) collided with its one entry, and
 * a batch's refused admission is the first entry of its ticket, so it is one of the batch's own.
 */
export const recordConflictsSql = (keysIn: string) => `INSERT INTO ticket_conflicts (tid, eid, anchor)
  SELECT d.tid, d.eid, ${ANCHOR('d', 'v')} FROM scans d
    LEFT JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')}
   WHERE d.eid = ? AND d.idempotency_key ${keysIn} AND d.outcome IN ${DUPLICATE_OUTCOMES} AND ${KEPT_BY_KEY('d')}
     AND ${IS_CONFLICT('d', 'v')}
  ON CONFLICT (tid) DO NOTHING`;

/** The minute of an instant in the stored form (`YYYY-MM-DDThh:mm`), an arrival's bucket. */
export const minuteOf = (at: string): string => at.slice(0, 16);

/** The event's entries per minute and gate (param: eid), in time order: a row per minute and gate with entries. */
export const ARRIVALS_SQL =
  'SELECT minute, gate_key, entries FROM arrival_counts WHERE eid = ? ORDER BY minute, gate_key';

/** Arrival rows as records (entries as numbers, the gate null for scans that named none). */
export const toArrivals = (rows: Row[]): ArrivalCount[] =>
  rows.map((row) => ({
    minute: row.minute as string,
    gate_id: row.gate_key === '' ? null : (row.gate_key as string),
    entries: Number(row.entries),
  }));

/** What a batch of new tickets adds to each event's counters (tickets may be created used or revoked). */
export class CountsByEvent {
  private readonly byEvent = new Map<string, Required<CountsMoved>>();

  add(ticket: Pick<TicketRecord, 'eid' | 'checked_in_at' | 'revoked_at'>): void {
    const moved = this.byEvent.get(ticket.eid) ?? { issued: 0, checked_in: 0, revoked: 0, conflicts: 0 };
    moved.issued += 1;
    if (ticket.checked_in_at !== null) moved.checked_in += 1;
    if (ticket.revoked_at !== null) moved.revoked += 1;
    this.byEvent.set(ticket.eid, moved);
  }

  /** Each event's counts, in eid order (the order counter rows are locked in). */
  events(): [string, Required<CountsMoved>][] {
    return [...this.byEvent.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
