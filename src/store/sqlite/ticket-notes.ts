import { TICKET_COLUMNS_SQL, toTicket } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import { emailAfter, notesAfter, orderAfter, type TicketChange, type TicketNotes } from '../ticket-notes.ts';
import type { SqliteContext } from './context.ts';
import { appendChange } from './feed.ts';

/** Appends the `ticket_notes` change that tells scanners a ticket's gate notes; in the caller's transaction. */
export function appendNotesChange(
  c: SqliteContext,
  ticket: Pick<TicketRecord, 'eid' | 'tid'> & TicketNotes,
  at: string,
) {
  appendChange(c, ticket.eid, 'ticket_notes', ticket.tid, at, {
    attention: ticket.attention,
    checkin_text: ticket.checkin_text,
  });
}

/**
 * Changes a ticket's gate notes and email and, when the notes differ from what it held, appends a
 * `ticket_notes` change with the new values, in one transaction (SQLite runs one writer at a time);
 * null if unknown. The email is no scanner's business: it is in no change.
 */
export function updateTicket(
  c: SqliteContext,
  tid: string,
  change: TicketChange,
  at: string,
): Promise<TicketRecord | null> {
  return c.tx(() => {
    const ticket = toTicket(c.one<TicketRecord>(`SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ?`, tid));
    if (!ticket) return null;
    const email = emailAfter(ticket, change);
    if (email !== null) c.run('UPDATE tickets SET email = ? WHERE tid = ?', email.email, tid);
    // The roster's trigger moves the ticket up its event's roster when the order changes.
    const order = orderAfter(ticket, change);
    if (order !== null) c.run('UPDATE tickets SET order_ref = ? WHERE tid = ?', order.order_ref, tid);
    const notes = notesAfter(ticket, change);
    if (notes === null) return { ...ticket, ...email, ...order };
    c.run(
      'UPDATE tickets SET attention = ?, checkin_text = ? WHERE tid = ?',
      Number(notes.attention),
      notes.checkin_text,
      tid,
    );
    const changed = { ...ticket, ...email, ...order, ...notes };
    appendNotesChange(c, changed, at);
    return changed;
  });
}
