import { shownShortCode } from './short-codes.ts';
import { type EntryOutcome, type ExitOutcome, holderAfter, type HolderState } from '@ticket-issuer/protocol';
import type { Presence, TicketMove, TicketRecord } from '../store/store.ts';
import { toWire } from './time.ts';

/**
 * The ticket's state machine on the issuer's side: unused, inside, out, revoked. The rules and the
 * transition table live in `packages/protocol` (`ticket-rules.ts`), shared with the scanners' offline
 * verdict; here they meet the store's rows. Both stores apply the moves `moveFor` returns, each only
 * from the state it names, in the attempt's transaction.
 */

/** Where the holder is, from the ticket row and its presence row (null: not read, or never came in). */
export function holderState(ticket: TicketRecord, presence: Presence | null): HolderState {
  if (ticket.checked_in_at === null) return 'unused';
  return presence !== null && !presence.inside ? 'out' : 'inside';
}

/**
 * Where the holder was when an exit was scanned, as far as the issuer knows: presence follows scan
 * time, so an exit scanned before the entry that has the holder inside now (an offline exit uploaded
 * late, the entry made meanwhile) did not take them out of it, and `checked_out_at` never comes
 * before `checked_in_at`.
 */
export function holderAtExit(ticket: TicketRecord, presence: Presence | null, scannedAt: string): HolderState {
  const now = holderState(ticket, presence);
  if (now !== 'inside' || ticket.checked_in_at === null || scannedAt >= ticket.checked_in_at) return now;
  return presence?.checked_out_at ? 'out' : 'unused';
}

/** When the holder went out, or null while they are not out (never came in, or inside). */
export function outSince(presence: Presence | null): string | null {
  return presence !== null && !presence.inside ? presence.checked_out_at : null;
}

/** The store's move for a scan's outcome, or null when the holder stays where they are. */
export function moveFor(
  before: HolderState,
  direction: 'in' | 'out',
  outcome: EntryOutcome | ExitOutcome,
  at: string,
): TicketMove | null {
  // Every valid entry is a move, a wristband's while counted inside (re-entry `any`) included.
  if (direction === 'in' && outcome === 'valid') return { to: 'inside', from: before, at };
  const after = holderAfter(before, direction, outcome);
  if (after === before) return null;
  if (after === 'inside') return { to: 'inside', from: before === 'out' ? 'out' : 'unused', at };
  return after === 'out' ? { to: 'out', at } : null;
}

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

/** What an entry's answer adds to the ticket: its count of entries and the notes for the gate. */
export interface SeenAtGate {
  entries: number;
  attention: boolean;
  checkin_texts: string[];
}

/** The ticket object of check-in answers (an entry's with its entries and notes). */
export function scannerTicket(
  ticket: TicketRecord,
  checkedInAt: string | null = ticket.checked_in_at,
  seen: SeenAtGate | null = null,
) {
  return {
    tid: ticket.tid,
    eid: ticket.eid,
    holder_name: ticket.holder_name,
    ticket_type: ticket.ticket_type,
    checked_in_at: toWire(checkedInAt),
    ...seen,
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

/**
 * The status endpoint's answer: the ticket's state, whether the holder is inside now, and when they
 * went out (null when they are not out).
 */
export function scannerStatusView(ticket: TicketRecord, presence: Presence | null, now: string, seen: SeenAtGate) {
  return {
    ...statusView(ticket, now),
    inside: presence?.inside === true,
    checked_out_at: toWire(outSince(presence)),
    ...seen,
  };
}

/**
 * The organizer's view of a ticket: everything, the token, the email and the holder page's link
 * included unless `withToken` is false (a viewer's answers: the token is an entry credential, the link
 * shows it and the email is the holder's personal data, so the fields are left out, not emptied).
 */
export function adminTicketView(ticket: TicketRecord, now: string, withToken = true, holderUrl: string | null = null) {
  return {
    ...statusView(ticket, now),
    expires_at: toWire(ticket.expires_at),
    revoked_at: toWire(ticket.revoked_at),
    revoke_reason: ticket.revoke_reason,
    ...(withToken ? { ticket_token: ticket.ticket_token } : {}),
    external_id: ticket.external_id ?? null,
    valid_from: toWire(ticket.valid_from ?? null),
    attention: ticket.attention ?? false,
    checkin_text: ticket.checkin_text ?? null,
    ...(withToken ? { email: ticket.email ?? null } : {}),
    order_ref: ticket.order_ref ?? null,
    ...(withToken ? { short_code: shownShortCode(ticket.short_code) } : {}),
    ...(withToken && holderUrl !== null ? { holder_url: holderUrl } : {}),
  };
}
