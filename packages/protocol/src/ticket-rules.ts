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
import {
  DEFAULT_EVENT_RULES,
  type EntryTiming,
  entryLimitReached,
  type EventRules,
  notValidNow,
  reentryMode,
  type RuleRefusal,
  type TicketTypeRules,
  tooSoon,
} from './entry-rules.ts';
import { holderAtScan } from './auto-exit.ts';
import { gateRefusal, type GateRule } from './gates.ts';
import type { CheckInOutcome } from './wire.ts';

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

/** The refusals of the entry rules (403 FORBIDDEN with this `details.reason`). */
export const RULE_REFUSALS = ['not_valid_now', 'entry_limit_reached', 'too_soon'] as const;
export type RuleRefusalReason = (typeof RULE_REFUSALS)[number];

/** An entry's outcome: the spec's vocabulary, a declared gate's refusal of the type, the rules' refusals. */
export type EntryOutcome = CheckInOutcome | 'ticket_type_not_admitted' | RuleRefusalReason;

/** An entry's outcome, and the details of a refusal by the entry rules. */
export interface EntryJudgement {
  outcome: EntryOutcome;
  refusal: RuleRefusal | null;
}

/** Where an entry is judged: the gate scanned at, the event's rules, the declared rules of the ticket's type. */
export interface EntryContext {
  gate: GateRule | null;
  event: EventRules;
  type: TicketTypeRules | null;
}

/** An exit's outcome (`revoked` lets the holder out all the same). */
export type ExitOutcome = 'checked_out' | 'not_inside' | 'revoked' | 'wrong_event' | 'invalid_signature';

/**
 * An entry, judged in the contract's order: signature, event, revocation, the gate's admitted types,
 * not valid now (`valid_from`, `valid_days`, `hours`), presence (inside: already used unless re-entry
 * is `any`; out: already used unless it is `after_exit` or `any`; a holder inside since before the
 * scan's event day started is out where the event has `auto_exit`: `holderAtScan`), the entry limit, too soon, expiry.
 * Every time is the scan's, in the event's zone.
 */
export function judgeEntry(facts: TicketFacts, timing: EntryTiming, context: EntryContext): EntryJudgement {
  const judged = (outcome: EntryOutcome, refusal: RuleRefusal | null = null): EntryJudgement => ({ outcome, refusal });
  if (!facts.signatureValid) return judged('invalid_signature');
  if (!facts.sameEvent) return judged('wrong_event');
  if (facts.revoked) return judged('revoked');
  if (gateRefusal(context.gate, facts.ticketType) !== null) return judged('ticket_type_not_admitted');
  const { type, event } = context;
  const offTime = notValidNow(timing, type, event);
  if (offTime !== null) return judged('not_valid_now', offTime);
  const mode = reentryMode(type, event);
  const holder = holderAtScan(facts.holder, timing.entries, timing.scannedAt, event);
  if ((holder === 'inside' && mode !== 'any') || (holder === 'out' && mode === 'none')) {
    return judged('already_used');
  }
  const limit = entryLimitReached(timing, type, event);
  if (limit !== null) return judged('entry_limit_reached', limit);
  const soon = tooSoon(timing, type);
  if (soon !== null) return judged('too_soon', soon);
  if (facts.expired) return judged('expired');
  return judged('valid');
}

/**
 * An entry without ticket types or `valid_from` (the rules of the first three releases): the gate,
 * use, and the event's re-entry after an exit.
 */
export function entryOutcome(facts: TicketFacts, gate: GateRule | null, reentry: boolean): EntryOutcome {
  const timing: EntryTiming = { scannedAt: new Date(0).toISOString(), validFrom: null, entries: [] };
  return judgeEntry(facts, timing, { gate, event: { ...DEFAULT_EVENT_RULES, reentry }, type: null }).outcome;
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
  // An entry of a holder inside (re-entry `any`) leaves them inside: the entry counts, the state stays.
  if (direction === 'in') return outcome === 'valid' ? 'inside' : before;
  // An exit takes a holder inside out, a revoked ticket's holder included.
  return before === 'inside' && (outcome === 'checked_out' || outcome === 'revoked') ? 'out' : before;
}
