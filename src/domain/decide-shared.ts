/** What entries and exits decide alike: the facts of the shared rules and the answers of an unusable scan. */
import type { TicketFacts } from '@ticket-issuer/protocol';
import type { CheckInVerdict, Presence, StoredAnswer, TicketRecord } from '../store/store.ts';
import { holderState } from './ticket-state.ts';

const INVALID_SIGNATURE_MESSAGE = 'the ticket signature could not be verified';

export const answer = (http_status: number, body: unknown): StoredAnswer => ({ http_status, body });

/** The facts of the shared rules, as the store's rows show them inside the transaction. */
export function factsOf(
  ticket: TicketRecord,
  eid: string,
  scannedAt: string,
  presentedToken: string | null,
  presence: Presence | null,
): TicketFacts {
  return {
    signatureValid: true,
    sameEvent: ticket.eid === eid,
    // A genuine token that is not the ticket's current one was superseded by a reissue.
    revoked: ticket.revoked_at !== null || (presentedToken !== null && presentedToken !== ticket.ticket_token),
    holder: holderState(ticket, presence),
    expired: ticket.expires_at !== null && ticket.expires_at <= scannedAt,
    ticketType: ticket.ticket_type,
  };
}

/** Why a revoked ticket is refused: the organizer's reason, or the reissue that superseded the token. */
export function revokedReason(ticket: TicketRecord): string | null {
  return ticket.revoked_at !== null ? ticket.revoke_reason : 'token superseded by a reissue';
}

/** The answers shared by entries and exits: a bad signature, an unknown tid, another event's ticket. */
export function unusable(
  ticket: TicketRecord | null,
  eid: string,
  signatureProblem: string | null,
): CheckInVerdict | null {
  if (signatureProblem !== null) {
    return {
      outcome: 'invalid_signature',
      reason: signatureProblem,
      move: null,
      answer: answer(400, {
        status: 'invalid_signature',
        ticket: null,
        error: { code: 'INVALID_SIGNATURE', message: INVALID_SIGNATURE_MESSAGE, details: {} },
      }),
    };
  }
  if (ticket === null) {
    return {
      outcome: 'not_found',
      reason: null,
      move: null,
      answer: answer(404, { error: { code: 'NOT_FOUND', message: 'no ticket has this tid', details: {} } }),
    };
  }
  if (ticket.eid !== eid) {
    return {
      outcome: 'wrong_event',
      reason: null,
      move: null,
      answer: answer(200, { status: 'wrong_event', ticket: { tid: ticket.tid, eid: ticket.eid } }),
    };
  }
  return null;
}
