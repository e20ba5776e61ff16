import type { CheckInVerdict, GateRecord, Presence, StoredAnswer, TicketRecord } from '../store/store.ts';
import { gateRefusal } from './gates.ts';
import { scannerTicket } from './ticket-state.ts';
import { toWire } from './time.ts';

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
  reentry: { presence: Presence | null } | null = null,
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
  // With re-entry, a holder who went out comes in again; while inside, the ticket is used.
  const wentOut = reentry?.presence != null && !reentry.presence.inside;
  if (ticket.checked_in_at !== null && !wentOut) return plain('already_used', ticket);
  if (ticket.expires_at !== null && ticket.expires_at <= scannedAt) return plain('expired', ticket);
  return {
    outcome: 'valid',
    reason: null,
    check_in_at: scannedAt,
    reentry: ticket.checked_in_at !== null,
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

/** The ticket as an exit answer shows it. */
function exitTicket(ticket: TicketRecord, presence: Presence | null, checkedOutAt: string | null) {
  return { ...scannerTicket(ticket), checked_out_at: toWire(checkedOutAt ?? presence?.checked_out_at ?? null) };
}

/**
 * The outcome of an exit scan; pure, run inside the store's transaction. The signature, the ticket
 * and the event are judged as for an entry. A revoked ticket (or a superseded token) answers
 * `revoked`, and a holder inside is still counted out. Otherwise a holder inside goes out
 * (`checked_out`), and one who is not (never came in, or already out) is `not_inside`. An exit is
 * never refused for the gate or the ticket's expiry: the holder is leaving.
 */
export function decideExit(
  ticket: TicketRecord | null,
  eid: string,
  scannedAt: string,
  signatureProblem: string | null,
  presentedToken: string | null,
  presence: Presence | null,
): CheckInVerdict {
  const entry = decide(ticket, eid, scannedAt, signatureProblem, presentedToken);
  // Invalid signature, unknown ticket, another event: answered exactly as at an entry.
  if (ticket === null || ['invalid_signature', 'not_found', 'wrong_event'].includes(entry.outcome)) return entry;
  const inside = presence?.inside === true;
  const checkOutAt = inside ? scannedAt : null;
  const answer = (status: 'checked_out' | 'not_inside' | 'revoked'): CheckInVerdict['answer'] => ({
    http_status: 200,
    body: { status, ticket: exitTicket(ticket, presence, checkOutAt) },
  });
  if (entry.outcome === 'revoked') {
    return {
      outcome: 'revoked',
      reason: entry.reason,
      check_in_at: null,
      check_out_at: checkOutAt,
      answer: answer('revoked'),
    };
  }
  if (!inside)
    return { outcome: 'not_inside', reason: null, check_in_at: null, check_out_at: null, answer: answer('not_inside') };
  return {
    outcome: 'checked_out',
    reason: null,
    check_in_at: null,
    check_out_at: checkOutAt,
    answer: answer('checked_out'),
  };
}
