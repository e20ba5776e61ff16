/** What the stores keep of a ticket, and what a reissue answers. */

export interface TicketRecord {
  tid: string;
  eid: string;
  holder_name: string;
  ticket_type: string;
  issued_at: string;
  expires_at: string | null;
  checked_in_at: string | null;
  revoked_at: string | null;
  revoke_reason: string | null;
  ticket_token: string;
  /** The organizer's own id of the ticket (an order line, a CSV row), unique per event; null when none. */
  external_id: string | null;
  /** Not valid for entry before this instant (the token's `nbf`); null: valid from issue. */
  valid_from: string | null;
  /** The holder needs attention at the gate. */
  attention: boolean;
  /** A text shown at the gate for this ticket, or null. */
  checkin_text: string | null;
  /** The holder's email address, where the ticket is sent; null when none. */
  email: string | null;
  /** The order or booking the ticket belongs to: the tickets of one order are a group; null when none. */
  order_ref: string | null;
  /** 10 Crockford base32 characters, random, unique per event (kept without the dash). */
  short_code: string;
}

export type ReissueFailure = 'unknown' | 'revoked' | 'used' | 'changed';

export type ReissueResult = { kind: 'reissued'; ticket: TicketRecord } | { kind: 'refused'; why: ReissueFailure };
