import { DEFAULT_EVENT_RULES, type EventRules, exitOutcome, holderAtScan } from '@ticket-issuer/protocol';
import type { CheckInVerdict, Presence, TicketRecord } from '../store/store.ts';
import { answer, factsOf, revokedReason, unusable } from './decide-shared.ts';
import { holderAtExit, moveFor, outSince, scannerTicket } from './ticket-state.ts';
import { toWire } from './time.ts';

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
  event: EventRules = DEFAULT_EVENT_RULES,
): CheckInVerdict {
  const early = unusable(ticket, eid, signatureProblem);
  if (early !== null || ticket === null) return early!;
  const entered = ticket.checked_in_at === null ? [] : [ticket.checked_in_at];
  const facts = {
    ...factsOf(ticket, eid, scannedAt, presentedToken, presence),
    // A holder inside since before the scan's event day was counted out at its start (auto_exit).
    holder: holderAtScan(holderAtExit(ticket, presence, scannedAt), entered, scannedAt, event),
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
