import { entryOutcome, exitOutcome, type TicketFacts } from '@ticket-issuer/protocol';
import type { CheckInVerdict, GateRecord, Presence, StoredAnswer, TicketRecord } from '../store/store.ts';
import { gateRefusal } from './gates.ts';
import { holderAtExit, holderState, moveFor, outSince, scannerTicket } from './ticket-state.ts';
import { toWire } from './time.ts';

const INVALID_SIGNATURE_MESSAGE = 'the ticket signature could not be verified';

const answer = (http_status: number, body: unknown): StoredAnswer => ({ http_status, body });

/** The facts of the shared rules, as the store's rows show them inside the transaction. */
function factsOf(
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
function revokedReason(ticket: TicketRecord): string | null {
  return ticket.revoked_at !== null ? ticket.revoke_reason : 'token superseded by a reissue';
}

/** The answers shared by entries and exits: a bad signature, an unknown tid, another event's ticket. */
function unusable(ticket: TicketRecord | null, eid: string, signatureProblem: string | null): CheckInVerdict | null {
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

/**
 * The outcome of an entry for the ticket as it is now; pure, run inside the store's transaction. The
 * rules are the shared ones (`entryOutcome`); this gives each outcome its answer and the ticket's move.
 * At a declared gate whose `admits` does not name the ticket's type: 403 FORBIDDEN
 * (`ticket_type_not_admitted`), and nothing changes. `reentry` (the holder's presence) is given only
 * for events that let a holder who went out in again.
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
  const early = unusable(ticket, eid, signatureProblem);
  if (early !== null || ticket === null) return early!;
  const facts = factsOf(ticket, eid, scannedAt, presentedToken, reentry?.presence ?? null);
  const outcome = entryOutcome(facts, gate, reentry !== null);
  switch (outcome) {
    case 'ticket_type_not_admitted':
      // The holder is sent to another gate: nothing changes, the attempt is logged.
      return {
        outcome,
        reason: `gate ${gate!.gate_id} does not admit ${ticket.ticket_type}`,
        move: null,
        answer: answer(403, {
          error: {
            code: 'FORBIDDEN',
            message: 'this gate does not admit this ticket type',
            // The holder's name too: staff tell the guest where to go.
            details: { ...gateRefusal(gate, ticket.ticket_type), holder_name: ticket.holder_name },
          },
        }),
      };
    case 'valid':
      return {
        outcome,
        reason: null,
        move: moveFor(facts.holder, 'in', outcome, scannedAt),
        answer: answer(200, { status: 'valid', ticket: scannerTicket(ticket, scannedAt) }),
      };
    case 'revoked':
    case 'already_used':
    case 'expired':
      return {
        outcome,
        reason: outcome === 'revoked' ? revokedReason(ticket) : null,
        move: null,
        answer: answer(200, { status: outcome, ticket: scannerTicket(ticket) }),
      };
    default:
      // invalid_signature and wrong_event were answered above.
      throw new Error(`unexpected entry outcome ${outcome}`);
  }
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
    move: null,
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
  return { ...scannerTicket(ticket), checked_out_at: toWire(checkedOutAt ?? outSince(presence)) };
}

/**
 * The outcome of an exit scan; pure, run inside the store's transaction, on the shared rules
 * (`exitOutcome`). The signature, the ticket and the event are judged as for an entry. A revoked
 * ticket (or a superseded token) answers `revoked`, and a holder inside is still counted out.
 * Otherwise a holder inside goes out (`checked_out`), and one who is not is `not_inside`, as is an
 * exit scanned before the entry that has the holder inside now (see `holderAtExit`).
 */
export function decideExit(
  ticket: TicketRecord | null,
  eid: string,
  scannedAt: string,
  signatureProblem: string | null,
  presentedToken: string | null,
  presence: Presence | null,
): CheckInVerdict {
  const early = unusable(ticket, eid, signatureProblem);
  if (early !== null || ticket === null) return early!;
  const facts = {
    ...factsOf(ticket, eid, scannedAt, presentedToken, presence),
    holder: holderAtExit(ticket, presence, scannedAt),
  };
  const outcome = exitOutcome(facts);
  if (outcome !== 'checked_out' && outcome !== 'not_inside' && outcome !== 'revoked') {
    throw new Error(`unexpected exit outcome ${outcome}`);
  }
  const move = moveFor(facts.holder, 'out', outcome, scannedAt);
  return {
    outcome,
    reason: outcome === 'revoked' ? revokedReason(ticket) : null,
    move,
    answer: answer(200, { status: outcome, ticket: exitTicket(ticket, presence, move?.at ?? null) }),
  };
}
