import type { ReissueFailure, TicketRecord } from './store.ts';

/**
 * Whether a ticket (as found, locked, inside the transaction) may get a new token in place of
 * `previousToken`. Shared by every backend so that they refuse alike and in the same order.
 */
export function reissueRefusal(ticket: TicketRecord | null, previousToken: string): ReissueFailure | null {
  if (!ticket) return 'unknown';
  if (ticket.revoked_at !== null) return 'revoked';
  if (ticket.checked_in_at !== null) return 'used';
  if (ticket.ticket_token !== previousToken) return 'changed';
  return null;
}
