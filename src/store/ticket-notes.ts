import type { TicketRecord } from './store.ts';

/** The gate notes a change may set: absent fields stay as they are. */
export type TicketNotesChange = Partial<Pick<TicketRecord, 'attention' | 'checkin_text'>>;

/** What `updateTicket` may change: the gate notes, the holder's email and the order; absent fields stay as they are. */
export type TicketChange = TicketNotesChange & Partial<Pick<TicketRecord, 'email' | 'order_ref'>>;

/** The gate notes a ticket_notes change carries. */
export type TicketNotes = Pick<TicketRecord, 'attention' | 'checkin_text'>;

/** Whether a new ticket has gate notes a scanner must learn from the feed. */
export const hasNotes = (ticket: TicketNotes): boolean => ticket.attention || ticket.checkin_text !== null;

/** The ticket's email after a change, or null when the change leaves it as it was. */
export function emailAfter(ticket: Pick<TicketRecord, 'email'>, change: TicketChange): { email: string | null } | null {
  return change.email === undefined || change.email === ticket.email ? null : { email: change.email };
}

/** The ticket's order after a change, or null when the change leaves it as it was. */
export function orderAfter(
  ticket: Pick<TicketRecord, 'order_ref'>,
  change: TicketChange,
): { order_ref: string | null } | null {
  return change.order_ref === undefined || change.order_ref === ticket.order_ref
    ? null
    : { order_ref: change.order_ref };
}

/** The ticket's notes after a change, or null when the change leaves them as they were. */
export function notesAfter(ticket: TicketNotes, change: TicketNotesChange): TicketNotes | null {
  const after = {
    attention: change.attention ?? ticket.attention,
    checkin_text: change.checkin_text === undefined ? ticket.checkin_text : change.checkin_text,
  };
  return after.attention === ticket.attention && after.checkin_text === ticket.checkin_text ? null : after;
}
