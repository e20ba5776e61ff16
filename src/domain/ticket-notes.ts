import type { Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { invalidRequest, IssuerError } from './errors.ts';
import { instantField } from './events.ts';
import { ticketEmail } from './ticket-email.ts';
import { orderRef } from './order-ref.ts';
import { toStored } from './time.ts';

/** The most characters of a ticket's `checkin_text` (the contract's limit, as a ticket type's). */
export const MAX_CHECKIN_TEXT = 200;

/**
 * A `checkin_text` as kept: trimmed, and null when nothing is left (an empty CSV cell means no
 * text, and a gate shows no empty line). Length and characters are checked by the request's schema.
 */
export function checkinText(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  return text === '' ? null : text;
}

/**
 * A ticket's `valid_from` as kept, or null. It is kept to the second, as the token's `nbf` carries
 * it, so that the issuer and an offline scanner judge "not valid now" at the same instant. A ticket
 * valid only from after it expires would never be valid: refused, naming the field.
 */
export function validFrom(field: string, value: string | null | undefined, expiresAt: string | null): string | null {
  if (value === undefined || value === null) return null;
  const instant = new Date(instantField(field, value));
  const kept = toStored(new Date(Math.floor(instant.getTime() / 1000) * 1000));
  if (expiresAt !== null && kept >= expiresAt) {
    throw invalidRequest(`${field} is not before expires_at: the ticket would never be valid`, [
      { field, problem: 'must be before expires_at' },
    ]);
  }
  return kept;
}

/** The Unix seconds of a stored instant (a token's `nbf` and `exp`). */
export const unixSeconds = (stored: string): number => Math.floor(new Date(stored).getTime() / 1000);

/** What `PATCH /admin/v1/tickets/{tid}` may send. */
export interface TicketNotesRequest {
  attention?: boolean;
  checkin_text?: string | null;
  /** The holder's email; null or empty removes it. */
  email?: string | null;
  /** The order or booking the ticket belongs to; null or empty removes it. */
  order_ref?: string | null;
}

/**
 * Changes a ticket's gate notes and its holder's email; scanners learn the notes from the feed (a
 * `ticket_notes` change, appended only when the notes differ from what the ticket held). At least one
 * field is required.
 */
export async function changeTicketNotes(
  store: Store,
  clock: Clock,
  tid: string,
  request: TicketNotesRequest,
): Promise<TicketRecord> {
  const fields = ['attention', 'checkin_text', 'email', 'order_ref'] as const;
  if (fields.every((field) => request[field] === undefined)) {
    throw invalidRequest(
      'send attention, checkin_text, email, order_ref or several of them',
      fields.map((field) => ({ field, problem: 'is required when the others are absent' })),
    );
  }
  const change = {
    ...(request.attention === undefined ? {} : { attention: request.attention }),
    ...(request.checkin_text === undefined ? {} : { checkin_text: checkinText(request.checkin_text) }),
    ...(request.email === undefined ? {} : { email: ticketEmail('email', request.email) }),
    ...(request.order_ref === undefined ? {} : { order_ref: orderRef('order_ref', request.order_ref) }),
  };
  const ticket = await store.tickets.updateTicket(tid, change, toStored(clock.now()));
  if (!ticket) throw new IssuerError('NOT_FOUND', 'no ticket has this tid');
  return ticket;
}
