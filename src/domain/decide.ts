import {
  DEFAULT_EVENT_RULES,
  type EventRules,
  gateNotes,
  judgeEntry,
  rulesFor,
  type TicketTypeRules,
} from '@ticket-issuer/protocol';
import type { CheckInVerdict, GateRecord, Presence, TicketRecord } from '../store/store.ts';
import { answer, factsOf, revokedReason, unusable } from './decide-shared.ts';
import { gateRefusal } from './gates.ts';
import { RULE_MESSAGES, ruleReason, wireRefusal } from './rule-refusals.ts';
import { entryDay } from './entry-day.ts';
import { moveFor, scannerTicket } from './ticket-state.ts';

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

/**
 * The outcome of an entry for the ticket as it is now; pure, run inside the store's transaction. The
 * rules are the shared ones (`judgeEntry`, in the contract's order); this gives each outcome its answer
 * and the ticket's move. A declared gate that does not admit the ticket's type, and the ticket type's
 * rules (not valid now, entry limit, too soon), answer 403 FORBIDDEN with the reason and change
 * nothing; but an entry a scanner admitted offline (`admittedOffline`) that the rules refuse now, or
 * that finds the ticket used (`already_used`), keeps its answer and still counts, the holder inside:
 * they did go in. Every answer's ticket carries its entries and
 * the notes for the gate. A counted entry carries its event day, and whether it is the ticket's first
 * counted entry of that day (the report's holders of the day count it).
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
  const verdict = decideEntry(ticket, eid, scannedAt, signatureProblem, presentedToken, state, rules, admittedOffline);
  if (verdict.counted !== true) return verdict;
  return { ...verdict, day: entryDay(scannedAt, state.entries, rules.event) };
}

function decideEntry(
  ticket: TicketRecord | null,
  eid: string,
  scannedAt: string,
  signatureProblem: string | null,
  presentedToken: string | null,
  state: EntryState,
  rules: EntryRules,
  admittedOffline: boolean | null,
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
    case 'already_used':
      // A holder a scanner let in offline went in, whatever the issuer answers now: counted inside.
      if (admittedOffline === true) {
        return {
          outcome,
          reason: null,
          move: { to: 'inside', from: facts.holder, at: scannedAt },
          counted: true,
          answer: answer(200, { status: outcome, ticket: scannerTicket(ticket, ticket.checked_in_at, seen(true)) }),
        };
      }
      return {
        outcome,
        reason: null,
        move: null,
        answer: answer(200, { status: outcome, ticket: scannerTicket(ticket, ticket.checked_in_at, seen(false)) }),
      };
    case 'revoked':
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
