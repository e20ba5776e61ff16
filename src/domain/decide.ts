import type { CheckInVerdict, GateRecord, StoredAnswer, TicketRecord } from '../store/store.ts';
import { gateRefusal } from './gates.ts';
import { scannerTicket } from './ticket-state.ts';

const INVALID_SIGNATURE_MESSAGE = 'the ticket signature could not be verified';

/**
 * The outcome for the ticket as it is now; pure, run inside the store's transaction. A genuine
 * token (its signature already checked) that is not the ticket's current one was superseded by a
 * reissue: `revoked`, and nothing changes. At a declared gate whose `admits` does not name the
 * ticket's type: 403 FORBIDDEN (`ticket_type_not_admitted`), and nothing changes.
 */
export function decide(
  ticket: TicketRecord | null,
  eid: string,
  scannedAt: string,
  signatureProblem: string | null,
  presentedToken: string | null = null,
  gate: Pick<GateRecord, 'gate_id' | 'admits'> | null = null,
): CheckInVerdict {
  const answer = (http_status: number, body: unknown): StoredAnswer => ({ http_status, body });
  const plain = (
    outcome: 'already_used' | 'revoked' | 'expired',
    t: TicketRecord,
    reason: string | null = null,
  ): CheckInVerdict => ({
    outcome,
    reason,
    check_in_at: null,
    answer: answer(200, { status: outcome, ticket: scannerTicket(t) }),
  });
  if (signatureProblem !== null) {
    return {
      outcome: 'invalid_signature',
      reason: signatureProblem,
      check_in_at: null,
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
      check_in_at: null,
      answer: answer(404, { error: { code: 'NOT_FOUND', message: 'no ticket has this tid', details: {} } }),
    };
  }
  if (ticket.eid !== eid) {
    return {
      outcome: 'wrong_event',
      reason: null,
      check_in_at: null,
      answer: answer(200, { status: 'wrong_event', ticket: { tid: ticket.tid, eid: ticket.eid } }),
    };
  }
  if (ticket.revoked_at !== null) return plain('revoked', ticket, ticket.revoke_reason);
  if (presentedToken !== null && presentedToken !== ticket.ticket_token) {
    return plain('revoked', ticket, 'token superseded by a reissue');
  }
  const refusal = gateRefusal(gate, ticket.ticket_type);
  if (refusal !== null) {
    // The holder is sent to another gate: nothing changes, the attempt is logged.
    return {
      outcome: 'ticket_type_not_admitted',
      reason: `gate ${refusal.gate_id} does not admit ${refusal.ticket_type}`,
      check_in_at: null,
      answer: answer(403, {
        error: { code: 'FORBIDDEN', message: 'this gate does not admit this ticket type', details: refusal },
      }),
    };
  }
  if (ticket.checked_in_at !== null) return plain('already_used', ticket);
  if (ticket.expires_at !== null && ticket.expires_at <= scannedAt) return plain('expired', ticket);
  return {
    outcome: 'valid',
    reason: null,
    check_in_at: scannedAt,
    answer: answer(200, { status: 'valid', ticket: scannerTicket(ticket, scannedAt) }),
  };
}

/**
 * A scanner that turned the holder away offline (`admitted_offline: false`) never has its upload
 * become a check-in: where the issuer would have said `valid`, the answer is 409 `CONFLICT`
 * (`turned_away_offline`), the attempt is logged, and the ticket stays unused for its next scan.
 * Every other verdict stands as it is.
 */
export function keepTurnedAway(verdict: CheckInVerdict): CheckInVerdict {
  if (verdict.outcome !== 'valid') return verdict;
  return {
    outcome: 'turned_away_offline',
    reason: 'the scanner turned the holder away offline; the ticket stays unused',
    check_in_at: null,
    answer: {
      http_status: 409,
      body: {
        error: {
          code: 'CONFLICT',
          message: 'this scanner turned the holder away offline, so the scan does not check the ticket in',
          details: { reason: 'turned_away_offline' },
        },
      },
    },
  };
}
