import {
  DEFAULT_EVENT_RULES,
  type EventRules,
  exitOutcome,
  gateNotes,
  judgeEntry,
  type RuleRefusal,
  type RuleRefusalReason,
  rulesFor,
  type TicketFacts,
  type TicketTypeRules,
} from '@ticket-issuer/protocol';
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

/** The event's rules as a check-in applies them: its calendar and re-entry, its declared ticket types. */
export interface EntryRules {
  event: EventRules;
  types: readonly TicketTypeRules[];
}

/** An entry without rules of its own: the event's re-entry only (UTC days, no ticket types). */
export const withoutTypes = (reentry: boolean): EntryRules => ({
  event: { ...DEFAULT_EVENT_RULES, reentry },
  types: [],
});

/** What the store read of the ticket in the attempt's transaction, besides the ticket itself. */
export interface EntryState {
  gate: Pick<GateRecord, 'gate_id' | 'admits'> | null;
  /** The holder's presence; undefined when it was not read (an event where no holder comes in twice). */
  presence?: Presence | null;
  /** The `scanned_at` of the ticket's counted entries (not annulled). */
  entries: readonly string[];
}

const RULE_MESSAGES: Record<RuleRefusalReason, string> = {
  not_valid_now: 'this ticket is not valid at this time',
  entry_limit_reached: 'this ticket has reached its entry limit',
  too_soon: 'too soon after this ticket’s last entry',
};

/** A refusal's instants in the answered form (no zero milliseconds), as every answer writes them. */
function wireRefusal(refusal: RuleRefusal): RuleRefusal {
  switch (refusal.reason) {
    case 'not_valid_now':
      return { ...refusal, valid_from: toWire(refusal.valid_from) };
    case 'too_soon':
      return { ...refusal, last_entry_at: toWire(refusal.last_entry_at), next_entry_at: toWire(refusal.next_entry_at) };
    default:
      return refusal;
  }
}

/** The scan log's reason for a refusal by the entry rules, in plain words. */
function ruleReason(refusal: RuleRefusal): string {
  switch (refusal.reason) {
    case 'not_valid_now':
      return `not valid now (event day ${refusal.event_day})`;
    case 'entry_limit_reached': {
      const days = refusal.max_days === null ? '' : `, ${refusal.days_used} of ${refusal.max_days} days used`;
      return `entry limit reached (${refusal.entries} entries, ${refusal.entries_today} on ${refusal.event_day}${days})`;
    }
    case 'too_soon':
      return `too soon (last entry ${refusal.last_entry_at}, next from ${refusal.next_entry_at})`;
  }
}

/**
 * The outcome of an entry for the ticket as it is now; pure, run inside the store's transaction. The
 * rules are the shared ones (`judgeEntry`, in the contract's order); this gives each outcome its answer
 * and the ticket's move. A declared gate that does not admit the ticket's type, and the ticket type's
 * rules (not valid now, entry limit, too soon), answer 403 FORBIDDEN with the reason and change
 * nothing; but an entry a scanner admitted offline (`admittedOffline`) that the rules refuse now keeps
 * its refusal and still counts: the holder did go in. Every answer's ticket carries its entries and
 * the notes for the gate.
 */
export function decide(
  ticket: TicketRecord | null,
  eid: string,
  scannedAt: string,
  signatureProblem: string | null,
  presentedToken: string | null,
  state: EntryState,
  rules: EntryRules,
  admittedOffline: boolean | null = null,
): CheckInVerdict {
  const early = unusable(ticket, eid, signatureProblem);
  if (early !== null || ticket === null) return early!;
  const facts = factsOf(ticket, eid, scannedAt, presentedToken, state.presence ?? null);
  const type = rulesFor(rules.types, ticket.ticket_type);
  const { outcome, refusal } = judgeEntry(
    facts,
    { scannedAt, validFrom: ticket.valid_from, entries: state.entries },
    { gate: state.gate, event: rules.event, type },
  );
  const notes = gateNotes(type, ticket);
  const seen = (counted: boolean) => ({ entries: state.entries.length + (counted ? 1 : 0), ...notes });
  switch (outcome) {
    case 'ticket_type_not_admitted':
      // The holder is sent to another gate: nothing changes, the attempt is logged.
      return {
        outcome,
        reason: `gate ${state.gate!.gate_id} does not admit ${ticket.ticket_type}`,
        move: null,
        answer: answer(403, {
          error: {
            code: 'FORBIDDEN',
            message: 'this gate does not admit this ticket type',
            // The holder's name too: staff tell the guest where to go.
            details: { ...gateRefusal(state.gate, ticket.ticket_type), holder_name: ticket.holder_name },
          },
        }),
      };
    case 'not_valid_now':
    case 'entry_limit_reached':
    case 'too_soon': {
      const counted = admittedOffline === true;
      return {
        outcome,
        reason: ruleReason(refusal!),
        move: counted ? { to: 'inside', from: facts.holder, at: scannedAt } : null,
        counted,
        answer: answer(403, {
          error: {
            code: 'FORBIDDEN',
            message: RULE_MESSAGES[outcome],
            details: {
              ...wireRefusal(refusal!),
              holder_name: ticket.holder_name,
              ticket_type: ticket.ticket_type,
              ...seen(counted),
            },
          },
        }),
      };
    }
    case 'valid':
      return {
        outcome,
        reason: null,
        move: moveFor(facts.holder, 'in', outcome, scannedAt),
        counted: true,
        answer: answer(200, { status: 'valid', ticket: scannerTicket(ticket, scannedAt, seen(true)) }),
      };
    case 'revoked':
    case 'already_used':
    case 'expired':
      return {
        outcome,
        reason: outcome === 'revoked' ? revokedReason(ticket) : null,
        move: null,
        answer: answer(200, { status: outcome, ticket: scannerTicket(ticket, ticket.checked_in_at, seen(false)) }),
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
    counted: false,
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
