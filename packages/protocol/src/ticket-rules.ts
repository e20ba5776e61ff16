/**
 * The ticket's rules at a gate, one implementation for the issuer's decision and a scanner's offline
 * verdict. Each side gathers the facts it knows (the issuer from its store inside the transaction, a
 * device from its synced knowledge and its own queue) and asks these functions for the outcome; the
 * verdict table (`verdict-cases.ts`) is their specification, and both sides are tested on it.
 *
 * The ticket's state machine: a ticket is `unused`, its holder `inside` or `out`, or it is revoked.
 *
 *   unused --entry--> inside --exit--> out --entry (re-entry on)--> inside
 *   revoked: entries refused; an exit still takes a holder inside out
 */
import { gateRefusal, type GateRule } from './gates.ts';
import type { CheckInOutcome } from './index.ts';

/** Where a ticket's holder is: never came in, inside, or came in and went out since. */
export type HolderState = 'unused' | 'inside' | 'out';

/** What one side knows about a scanned ticket, in the terms of the rules. */
export interface TicketFacts {
  /** The token's signature verifies against a published key (and its claims are well formed). */
  signatureValid: boolean;
  /** The ticket belongs to the event scanned for. */
  sameEvent: boolean;
  /** The ticket was revoked, or the token scanned was superseded by a reissue. */
  revoked: boolean;
  holder: HolderState;
  /** The ticket's expiry is at or before the scan time. */
  expired: boolean;
  ticketType: string;
}

/** An entry's outcome: the spec's vocabulary, and a declared gate's refusal of the ticket type. */
export type EntryOutcome = CheckInOutcome | 'ticket_type_not_admitted';

/** An exit's outcome (`revoked` lets the holder out all the same). */
export type ExitOutcome = 'checked_out' | 'not_inside' | 'revoked' | 'wrong_event' | 'invalid_signature';

/**
 * An entry, judged in the issuer's order: signature, event, revocation, the gate's admitted types,
 * use (a holder who went out comes in again only where the event allows re-entry), expiry.
 */
export function entryOutcome(facts: TicketFacts, gate: GateRule | null, reentry: boolean): EntryOutcome {
  if (!facts.signatureValid) return 'invalid_signature';
  if (!facts.sameEvent) return 'wrong_event';
  if (facts.revoked) return 'revoked';
  if (gateRefusal(gate, facts.ticketType) !== null) return 'ticket_type_not_admitted';
  if (facts.holder === 'inside' || (facts.holder === 'out' && !reentry)) return 'already_used';
  if (facts.expired) return 'expired';
  return 'valid';
}

/**
 * An exit: signature and event as at an entry; a revoked ticket answers `revoked` (its holder, if
 * inside, is still counted out); a holder inside goes out, anyone else is `not_inside`. Never refused
 * for the gate or the expiry: the holder is leaving.
 */
export function exitOutcome(facts: TicketFacts): ExitOutcome {
  if (!facts.signatureValid) return 'invalid_signature';
  if (!facts.sameEvent) return 'wrong_event';
  if (facts.revoked) return 'revoked';
  return facts.holder === 'inside' ? 'checked_out' : 'not_inside';
}

/** Where the holder is after a scan with this outcome: the state machine's one transition table. */
export function holderAfter(
  before: HolderState,
  direction: 'in' | 'out',
  outcome: EntryOutcome | ExitOutcome,
): HolderState {
  if (direction === 'in') return outcome === 'valid' ? 'inside' : before;
  // An exit takes a holder inside out, a revoked ticket's holder included.
  return before === 'inside' && (outcome === 'checked_out' || outcome === 'revoked') ? 'out' : before;
}
