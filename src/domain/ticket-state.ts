import type { TicketRecord } from '../store/store.ts';
import { toWire } from './time.ts';

export type TicketState = 'valid' | 'checked_in' | 'revoked' | 'expired';

/**
 * A ticket's state at `now`. Revocation outranks use (an organizer revoking a used ticket wants
 * scanners to see it revoked); expiry applies only to tickets not used.
 */
export function ticketState(ticket: TicketRecord, now: string): TicketState {
  if (ticket.revoked_at !== null) return 'revoked';
  if (ticket.checked_in_at !== null) return 'checked_in';
  if (ticket.expires_at !== null && ticket.expires_at <= now) return 'expired';
  return 'valid';
}

/** The ticket object of check-in answers. */
export function scannerTicket(ticket: TicketRecord, checkedInAt: string | null = ticket.checked_in_at) {
  return {
    tid: ticket.tid,
    eid: ticket.eid,
    holder_name: ticket.holder_name,
    ticket_type: ticket.ticket_type,
    checked_in_at: toWire(checkedInAt),
  };
}

/** The answer of the status endpoint. */
export function statusView(ticket: TicketRecord, now: string) {
  return {
    tid: ticket.tid,
    eid: ticket.eid,
    status: ticketState(ticket, now),
    holder_name: ticket.holder_name,
    ticket_type: ticket.ticket_type,
    issued_at: toWire(ticket.issued_at),
    checked_in_at: toWire(ticket.checked_in_at),
  };
}

/** The organizer's view of a ticket: everything, the token included. */
export function adminTicketView(ticket: TicketRecord, now: string) {
  return {
    ...statusView(ticket, now),
    expires_at: toWire(ticket.expires_at),
    revoked_at: toWire(ticket.revoked_at),
    revoke_reason: ticket.revoke_reason,
    ticket_token: ticket.ticket_token,
  };
}
