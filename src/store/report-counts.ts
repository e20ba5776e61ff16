import type { TicketRecord } from './ticket-records.ts';

/**
 * The event report's counts, kept rather than counted (SQL shared by every backend, `?` placeholders),
 * so that the report reads a few rows whatever the size of the event (migration 35):
 * - `type_counts`: per event and ticket type, the tickets issued, checked in at least once, revoked,
 *   and both checked in and revoked (no-shows are issued − checked in − revoked + both). They move in
 *   the transaction of each change of a ticket's state: issuing, a first entry (the plan of moves), a
 *   revocation, an annul that leaves the ticket unused;
 * - `day_holders`: per event day (`entries.day`, in the event's zone) the holders with a counted entry
 *   that day, moved by a ticket's first counted entry of the day (the plan of moves) and back by an
 *   annul of its last one.
 * On PostgreSQL the rows are written after the event's counters, the lock order of every writer.
 */

/** A ticket's state as its type's counts see it. */
export type CountedTicket = Pick<TicketRecord, 'eid' | 'ticket_type' | 'checked_in_at' | 'revoked_at'>;

/** What moves a ticket type's counts. */
export interface TypeCountsMoved {
  eid: string;
  ticket_type: string;
  issued: number;
  checked_in: number;
  revoked: number;
  checked_in_revoked: number;
}

/** Adds to a ticket type's counts (params: `typeCountValues`). */
export const BUMP_TYPE_COUNTS_SQL = `INSERT INTO type_counts (eid, ticket_type, issued, checked_in, revoked, checked_in_revoked)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (eid, ticket_type) DO UPDATE SET issued = type_counts.issued + excluded.issued,
    checked_in = type_counts.checked_in + excluded.checked_in, revoked = type_counts.revoked + excluded.revoked,
    checked_in_revoked = type_counts.checked_in_revoked + excluded.checked_in_revoked`;

/** The parameters of BUMP_TYPE_COUNTS_SQL. */
export const typeCountValues = (m: TypeCountsMoved): unknown[] => [
  m.eid,
  m.ticket_type,
  m.issued,
  m.checked_in,
  m.revoked,
  m.checked_in_revoked,
];

/** The event's counts per ticket type (param: eid), no-shows worked out. */
export const TYPE_COUNTS_SQL = `SELECT ticket_type, issued, revoked, checked_in,
    issued - checked_in - revoked + checked_in_revoked AS no_show
  FROM type_counts WHERE eid = ? AND issued <> 0`;

/** One holder more on an event day (params: eid, day). */
export const COUNT_DAY_HOLDER_SQL = `INSERT INTO day_holders (eid, day, holders) VALUES (?, ?, 1)
  ON CONFLICT (eid, day) DO UPDATE SET holders = day_holders.holders + 1`;

/**
 * One holder fewer on an event day when the ticket has no counted entry left on it (params: eid, day,
 * tid); after the entry is marked annulled. A ticket's entries are few (`entries_by_ticket`).
 */
export const DAY_HOLDER_BACK_SQL = `UPDATE day_holders SET holders = holders - 1 WHERE eid = ? AND day = ?
  AND NOT EXISTS (SELECT 1 FROM entries WHERE tid = ? AND day = day_holders.day AND annulled_at IS NULL)`;

/** The event's holders per event day (param: eid). */
export const DAY_HOLDERS_SQL = 'SELECT day, holders FROM day_holders WHERE eid = ? AND holders <> 0';

const part = (t: CountedTicket, sign: number): TypeCountsMoved => ({
  eid: t.eid,
  ticket_type: t.ticket_type,
  issued: sign,
  checked_in: t.checked_in_at === null ? 0 : sign,
  revoked: t.revoked_at === null ? 0 : sign,
  checked_in_revoked: t.checked_in_at === null || t.revoked_at === null ? 0 : sign,
});

const moves = (m: TypeCountsMoved): boolean =>
  m.issued !== 0 || m.checked_in !== 0 || m.revoked !== 0 || m.checked_in_revoked !== 0;

/**
 * What a change of a ticket from `before` to `after` (null: not there) moves, per type: its part in
 * the old state out, its part in the new one in; nothing when they are the same.
 */
export function typeCountsMoved(before: CountedTicket | null, after: CountedTicket | null): TypeCountsMoved[] {
  const out = before === null ? null : part(before, -1);
  const into = after === null ? null : part(after, 1);
  if (out !== null && into !== null && out.eid === into.eid && out.ticket_type === into.ticket_type) {
    const sum = {
      ...into,
      issued: 0,
      checked_in: out.checked_in + into.checked_in,
      revoked: out.revoked + into.revoked,
      checked_in_revoked: out.checked_in_revoked + into.checked_in_revoked,
    };
    return moves(sum) ? [sum] : [];
  }
  return [out, into].filter((m): m is TypeCountsMoved => m !== null);
}

/** What a batch of new tickets adds to the counts of each event's types, in (eid, type) order. */
export function typeCountsOfNew(tickets: readonly CountedTicket[]): TypeCountsMoved[] {
  const byType = new Map<string, TypeCountsMoved>();
  for (const ticket of tickets) {
    const key = `${ticket.eid}\u0000${ticket.ticket_type}`;
    const sum = byType.get(key);
    const added = part(ticket, 1);
    if (sum === undefined) byType.set(key, added);
    else {
      sum.issued += 1;
      sum.checked_in += added.checked_in;
      sum.revoked += added.revoked;
      sum.checked_in_revoked += added.checked_in_revoked;
    }
  }
  return [...byType.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, m]) => m);
}
