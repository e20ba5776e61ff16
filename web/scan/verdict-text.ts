/**
 * What the verdict screen says: the contract's words for each outcome, the holder and ticket type,
 * and when and where a used ticket was checked in. Pure, so that it is tested without a browser.
 */
import { gatesAdmitting, type GateRule, type ScanResult } from '@ticket-issuer/scanner';
import { ruleAdvice } from './rule-text.ts';

/** The reasons' words, by the spec's outcome or the issuer's error code. */
const REASON_WORDS: Record<string, string> = {
  already_used: 'already used',
  revoked: 'revoked',
  wrong_event: 'wrong event',
  expired: 'expired',
  invalid_signature: 'not valid',
  // A ticket the issuer does not know, or a scan it refused: nobody goes in on it.
  NOT_FOUND: 'not valid',
  INVALID_REQUEST: 'not valid',
  FORBIDDEN: 'not admitted at this gate',
  ticket_type_not_admitted: 'not admitted at this gate',
  not_valid_now: 'not valid now',
  entry_limit_reached: 'entry limit reached',
  too_soon: 'too soon',
  not_inside: 'not inside',
  // A holder chosen by name while the issuer did not answer: the device has no ticket to judge.
  no_answer: 'no answer from the issuer: not checked in',
};

/** The look of a verdict: green admit, red reject, the exit colour, amber for "nothing to do". */
export type VerdictTone = 'admit' | 'reject' | 'exit' | 'notice';

/** The lines of a verdict: the word (Admit or Reject), the reason, who, what to do, and how it was decided. */
export interface VerdictText {
  word: 'Admit' | 'Exit' | 'Reject' | 'Already out';
  tone: VerdictTone;
  reason: string | null;
  who: string | null;
  /** What to do about it, where the screen can say (for the entry rules: when the ticket may come in). */
  advice: string | null;
  source: string;
  /** The holder needs attention: the screen says so in words, not by colour alone. */
  attention: boolean;
  /** Texts for the gate: the ticket type's, then the ticket's. */
  notes: string[];
}

/** When and at which gate the device knows a ticket was let in (its changes feed). */
export interface KnownPlace {
  at: string;
  gate_id: string | null;
}

/** What the device knows beside the result, for its words. */
export interface VerdictContext {
  /** This device's gate (its key's), or null. */
  gate?: string | null;
  /** The ticket type signed in the scanned code, for an answer that carries none. */
  tokenType?: string | null;
  /** Where the changes feed last saw the ticket let in. */
  place?: KnownPlace | null;
  /** This device let the ticket in once. */
  admittedHere?: boolean;
  /** The device knows the ticket was let in once: an exit's `not inside` then means already out. */
  wasInside?: boolean;
  /** The event's declared gates as the device last read them: their names, and where a type may go in. */
  gates?: readonly GateRule[];
  now?: Date;
  locale?: string;
}

/** "18:02" today, "24 Nov 18:02" another day, in the device's locale and time zone. */
export function formatWhen(iso: string, now: Date = new Date(), locale?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const time = at.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  if (at.toDateString() === now.toDateString()) return time;
  return `${at.toLocaleDateString(locale, { day: 'numeric', month: 'short' })} ${time}`;
}

const sameInstant = (a: string, b: string) => new Date(a).getTime() === new Date(b).getTime();

/**
 * A gate as the header, the signs and the console name it: by its id ("gate main"), never by its
 * declared name, which staff may not know and two gates may share.
 */
export function gateName(gateId: string): string {
  return `gate ${gateId}`;
}

/** Names in a sentence: "A", "A or B", "A, B or C". */
const either = (names: string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;

/** What to tell a holder a gate turned away: where the type goes in, when the device knows the gates. */
function gateAdvice(type: string | null, context: VerdictContext): string {
  const gates = context.gates ?? [];
  const here = context.gate ? `Not for ${gateName(context.gate)}` : 'Not for this gate';
  if (type === null) return `${here}: send the holder to a gate that admits this ticket.`;
  const elsewhere = gatesAdmitting(gates, type, context.gate ?? null).map((gate) => gateName(gate.gate_id));
  if (elsewhere.length === 0) return `${here}: send the holder to a gate that admits ${type}.`;
  return `${here}: send the holder to ${either(elsewhere)}.`;
}

/**
 * Where a used ticket went in: the package's answer when it says, else the feed's entry of that same
 * moment, else this device (its own earlier admit, not in the feed yet).
 */
function usedWhere(ticket: NonNullable<ScanResult['ticket']>, context: VerdictContext): string | null {
  const at = (gateId: string) => `at ${gateName(gateId)}`;
  if (ticket.checked_in_gate) return at(ticket.checked_in_gate);
  const place = context.place;
  if (place && ticket.checked_in_at && sameInstant(place.at, ticket.checked_in_at)) {
    return place.gate_id ? at(place.gate_id) : null;
  }
  if (context.admittedHere) return context.gate ? at(context.gate) : 'on this device';
  return null;
}

function usedReason(result: ScanResult, context: VerdictContext): string {
  const ticket = result.ticket;
  let reason = 'already used';
  if (!ticket) return reason;
  if (ticket.checked_in_at) reason += ` at ${formatWhen(ticket.checked_in_at, context.now, context.locale)}`;
  const where = usedWhere(ticket, context);
  return where ? `${reason} ${where}` : reason;
}

/** A gate's refusal: the reason the device gives, or the issuer's code for it. */
const isGateRefusal = (reason: string) => reason === 'ticket_type_not_admitted' || reason === 'FORBIDDEN';

export function verdictText(result: ScanResult, context: VerdictContext = {}): VerdictText {
  // A code that is no ticket (a poster's QR, a link, typed text) asked nobody: it is not offline either.
  const notATicket = result.tid === null && result.idempotency_key === null;
  const source = notATicket
    ? 'This code is not a ticket.'
    : result.source === 'offline'
      ? 'Decided on this device (offline)'
      : 'Checked by the issuer';
  const ticket = result.ticket;
  const type = ticket?.ticket_type ?? context.tokenType ?? null;
  const whoParts = [ticket?.holder_name, type].filter((part): part is string => !!part);
  const who = whoParts.length === 0 ? null : whoParts.join(' · ');
  const base = { who, source, advice: null, attention: result.attention === true, notes: result.checkin_texts ?? [] };
  if (result.verdict === 'admit') return { ...base, word: 'Admit', tone: 'admit', reason: null };
  if (result.verdict === 'exit') {
    // A revoked ticket's holder leaving is let out too, and told why.
    return { ...base, word: 'Exit', tone: 'exit', reason: result.reason === 'revoked' ? 'revoked' : null };
  }
  if (result.reason === 'not_inside' && context.wasInside) {
    // Scanned out twice: the holder is out already, nothing is wrong and nothing is to be done.
    return { ...base, word: 'Already out', tone: 'notice', reason: null, advice: 'Already counted out: let them go.' };
  }
  if (result.reason === 'already_used')
    return { ...base, word: 'Reject', tone: 'reject', reason: usedReason(result, context) };
  const reason = REASON_WORDS[result.reason] ?? 'not valid';
  let advice: string | null = null;
  if (isGateRefusal(result.reason)) advice = gateAdvice(type, context);
  else advice = ruleAdvice(result, (iso) => formatWhen(iso, context.now, context.locale), context.locale);
  return { ...base, word: 'Reject', tone: 'reject', reason, advice };
}

/** The setup URI inside what was typed, pasted or scanned: the URI itself, or a /scan/#setup= link. */
export function setupUriFrom(input: string): string {
  const text = input.trim();
  const mark = text.indexOf('#setup=');
  if (mark === -1) return text;
  const encoded = text.slice(mark + '#setup='.length);
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Whether scanned or typed text is a setup code (the URI, or a web scanner link carrying one). */
export const isSetupCode = (input: string): boolean => setupUriFrom(input).startsWith('ticket-issuer://enroll');
