/**
 * How the entry rules would answer a holder known by name, not by a scanned token (one found by name,
 * a member of a group, a ticket from the roster): the same rules the offline verdict applies, on what
 * the issuer said of the holder (status, inside) joined with what the device knows since. Said before
 * staff choose the holder, so that a refusal is read before anyone walks in; the issuer (online) or
 * the device (offline) still judges the check-in itself.
 */
import {
  DEFAULT_EVENT_RULES,
  type EntryOutcome,
  gateNotes,
  type GateNotes,
  type HolderState,
  judgeEntry,
  type RuleRefusal,
  rulesFor,
  type TicketState,
} from '@ticket-issuer/protocol';
import { entriesOf, holderOnDevice } from './device-knowledge.ts';
import type { TicketNotes } from './knowledge.ts';
import type { ScanContext } from './scan-result.ts';

/** A holder as a search, a group or the roster names them. */
export interface NamedHolder {
  tid: string;
  ticket_type: string;
  /** The issuer's state of the ticket when it answered (absent: only the device's knowledge counts). */
  status?: TicketState;
  /** The issuer said the holder was inside when it answered. */
  inside?: boolean;
  /** The ticket's own notes as the roster tells them, where the feed told none. */
  own?: TicketNotes;
}

/** The rules' answer for a named holder now: `valid`, or the refusal and its details. */
export interface HolderJudgement extends GateNotes {
  outcome: EntryOutcome;
  refusal: RuleRefusal | null;
}

/** Where the holder is: the issuer's word when it gave one, unless the device has seen them move since. */
function presence(ctx: ScanContext, holder: NamedHolder): HolderState {
  const device = holderOnDevice(ctx, holder.tid);
  if (holder.inside === undefined && holder.status === undefined) return device;
  const issuer: HolderState = holder.inside ? 'inside' : holder.status === 'checked_in' ? 'out' : 'unused';
  // A move this device made since the answer (queued, or answered after it) is newer than the answer.
  const movedHere = ctx.queue.itemsOf(holder.tid).length > 0 || ctx.queue.moves.has(holder.tid);
  return movedHere ? device : issuer;
}

/** Judges a named holder at `gate`, at the device's (corrected) time, by the rules the last sync read. */
export function judgeHolder(ctx: ScanContext, holder: NamedHolder, gate: string | null): HolderJudgement {
  const rules = ctx.rules;
  const type = rulesFor(rules.ticketTypes, holder.ticket_type);
  const event = { ...DEFAULT_EVENT_RULES, ...rules.event, auto_exit: rules.autoExit };
  const facts = {
    signatureValid: true,
    sameEvent: true,
    revoked: holder.status === 'revoked' || ctx.knowledge.revoked.has(holder.tid),
    holder: presence(ctx, holder),
    expired: holder.status === 'expired',
    ticketType: holder.ticket_type,
  };
  const timing = { scannedAt: ctx.now().toISOString(), validFrom: null, entries: entriesOf(ctx, holder.tid) };
  const { outcome, refusal } = judgeEntry(facts, timing, {
    gate: gate === null ? null : (rules.gates.get(gate) ?? null),
    event,
    type,
  });
  const own = ctx.knowledge.notes?.get(holder.tid) ?? holder.own ?? { attention: false, checkin_text: null };
  return { outcome, refusal, ...gateNotes(type, own) };
}
