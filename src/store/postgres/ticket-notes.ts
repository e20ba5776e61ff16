import { TICKET_COLUMNS_SQL } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import { emailAfter, notesAfter, orderAfter, type TicketChange, type TicketNotes } from '../ticket-notes.ts';
import { appendChange } from './feed.ts';
import { type Db, one, type Tx } from './queries.ts';

/** Appends the `ticket_notes` change that tells scanners a ticket's gate notes; in the caller's transaction. */
export function appendNotesChange(db: Db, ticket: Pick<TicketRecord, 'eid' | 'tid'> & TicketNotes, at: string) {
  return appendChange(db, ticket.eid, 'ticket_notes', ticket.tid, at, {
    attention: ticket.attention,
    checkin_text: ticket.checkin_text,
  });
}

/**
 * Appends a `ticket_notes` change for each of these new tickets, in their order, in one statement:
 * each event's feed counter moves once by its number of changes, which take the positions just below
 * the new value. In the caller's transaction, after `lockFeedCounters` for these events.
 */
export async function appendNotesChanges(db: Db, tickets: TicketRecord[]): Promise<void> {
  if (tickets.length === 0) return;
  await db.query(
    `WITH counters AS (
       INSERT INTO change_counters (eid, last_position)
       SELECT eid, count(*) FROM unnest($1::text[]) AS c (eid) GROUP BY eid ORDER BY eid
       ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + EXCLUDED.last_position
       RETURNING eid, last_position)
     INSERT INTO changes (eid, position, type, tid, at, attention, checkin_text)
     SELECT c.eid,
       counters.last_position - count(*) OVER (PARTITION BY c.eid) + row_number() OVER (PARTITION BY c.eid ORDER BY c.n),
       'ticket_notes', c.tid, c.at, c.attention, c.checkin_text
     FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[]) WITH ORDINALITY
       AS c (eid, tid, at, attention, checkin_text, n)
     JOIN counters ON counters.eid = c.eid`,
    [
      tickets.map((t) => t.eid),
      tickets.map((t) => t.tid),
      tickets.map((t) => t.issued_at),
      tickets.map((t) => t.attention),
      tickets.map((t) => t.checkin_text),
    ],
  );
}

/**
 * Takes the feed counters of these events (creating those that are missing) before anything else in
 * the transaction: every writer locks an event's feed counter before its ticket counters, so an
 * import that will append changes takes it first, never after the counters its insert moves.
 */
export async function lockFeedCounters(db: Db, eids: string[]): Promise<void> {
  await db.query(
    `INSERT INTO change_counters (eid, last_position) SELECT DISTINCT e, 0 FROM unnest($1::text[]) AS e ORDER BY 1
       ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position`,
    [eids],
  );
}

/**
 * Changes a ticket's gate notes and email and, when the notes differ from what it held, appends a
 * `ticket_notes` change with the new values, in one transaction; null if unknown. The ticket's row is
 * locked first (then the feed counter, as a check-in does), so concurrent changes apply one after the
 * other and the last change in the feed holds the notes the ticket ends with. The email is in no change.
 */
export function updateTicket(tx: Tx, tid: string, change: TicketChange, at: string): Promise<TicketRecord | null> {
  return tx(async (db) => {
    const ticket = await one<TicketRecord>(db, `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = $1 FOR UPDATE`, [
      tid,
    ]);
    if (!ticket) return null;
    const email = emailAfter(ticket, change);
    if (email !== null) await db.query('UPDATE tickets SET email = $1 WHERE tid = $2', [email.email, tid]);
    // The roster's trigger moves the ticket up its event's roster when the order changes.
    const order = orderAfter(ticket, change);
    if (order !== null) await db.query('UPDATE tickets SET order_ref = $1 WHERE tid = $2', [order.order_ref, tid]);
    const notes = notesAfter(ticket, change);
    if (notes === null) return { ...ticket, ...email, ...order };
    await db.query('UPDATE tickets SET attention = $1, checkin_text = $2 WHERE tid = $3', [
      notes.attention,
      notes.checkin_text,
      tid,
    ]);
    const changed = { ...ticket, ...email, ...order, ...notes };
    await appendNotesChange(db, changed, at);
    return changed;
  });
}
