import type { TicketRecord } from './store.ts';

/** The gate notes a change may set: absent fields stay as they are. */
export type TicketNotesChange = Partial<Pick<TicketRecord, 'attention' | 'checkin_text'>>;

/** What `updateTicket` may change: the gate notes and the holder's email; absent fields stay as they are. */
export type TicketChange = TicketNotesChange & Partial<Pick<TicketRecord, 'email'>>;

/** The gate notes a ticket_notes change carries. */
export type TicketNotes = Pick<TicketRecord, 'attention' | 'checkin_text'>;

/** Whether a new ticket has gate notes a scanner must learn from the feed. */
export const hasNotes = (ticket: TicketNotes): boolean => ticket.attention || ticket.checkin_text !== null;

/** The ticket's email after a change, or null when the change leaves it as it was. */
export function emailAfter(ticket: Pick<TicketRecord, 'email'>, change: TicketChange): { email: string | null } | null {
  return change.email === undefined || change.email === ticket.email ? null : { email: change.email };
}

/** The ticket's notes after a change, or null when the change leaves them as they were. */
export function notesAfter(ticket: TicketNotes, change: TicketNotesChange): TicketNotes | null {
  const after = {
    attention: change.attention ?? ticket.attention,
    checkin_text: change.checkin_text === undefined ? ticket.checkin_text : change.checkin_text,
  };
  return after.attention === ticket.attention && after.checkin_text === ticket.checkin_text ? null : after;
}
