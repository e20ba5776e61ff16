import {
  DEFAULT_EVENT_RULES,
  type EntryTiming,
  type EventCalendar,
  type EventRules,
  exitOutcome,
  type GateRule,
  gateNotes,
  type GateNotes,
  holderAtScan,
  type HolderState,
  judgeEntry,
  type OfflineOutcome,
  type RuleRefusal,
  rulesFor,
  type TicketClaims,
  type TicketFacts,
  type TicketTypeRules,
} from '@ticket-issuer/protocol';
// jose's subpath entries load a few modules instead of the whole library: a CLI run starts faster.
import { compactVerify } from 'jose/jws/compact/verify';
import { type KeyRing, readToken, TOKEN_VERSIONS } from './token.ts';

/** A set of tids, as far as a verdict needs one. */
export type TidSet = Pick<ReadonlySet<string>, 'has'>;

/** What a device knows about the event's tickets besides the tokens themselves. */
export interface LocalKnowledge {
  /** Tickets the changes feed reported revoked. */
  revoked: TidSet;
  /** Superseded tokens by tid: their `jti`s, and null for "every token of that tid without a jti". */
  superseded: Pick<ReadonlyMap<string, Pick<ReadonlySet<string | null>, 'has'>>, 'get'>;
  /** Tickets the changes feed reported checked in. */
  checkedIn: TidSet;
  /** Tickets this device admitted itself. */
  admitted: TidSet;
  /** Tickets whose holder went out (the feed's exits, and this device's own). */
  out?: TidSet;
  /** The event lets a holder who went out in again (from the rules route). */
  reentry?: boolean;
  /** The event counts holders out at each day start (`auto_exit`, from the rules route). */
  autoExit?: boolean;
  /**
   * The event's time zone, day start and days (from the rules route); absent: UTC days from midnight,
   * no date bounding the event.
   */
  calendar?: EventCalendar & Pick<EventRules, 'event_days'>;
  /** The event's declared ticket types (from the rules route); absent: none declared. */
  ticketTypes?: readonly TicketTypeRules[];
  /** The `scanned_at` of each ticket's entries the device knows (the feed's and its own), by tid. */
  entries?: Pick<ReadonlyMap<string, readonly string[]>, 'get'>;
  /** Each ticket's own notes for the gate (the feed's `ticket_notes`), by tid. */
  notes?: Pick<ReadonlyMap<string, { attention: boolean; checkin_text: string | null }>, 'get'>;
}

/** The inputs of one offline decision. */
export interface VerdictInput {
  token: string;
  /** The scanner's event. */
  eid: string;
  /** The issuer a token must name in `iss`. */
  iss: string;
  /** The scan time; expiry is judged at it. */
  scannedAt: Date;
  keys: KeyRing;
  knowledge: LocalKnowledge;
  /** The declared gate scanned at (from the issuer's gates route), or null: every type is let in. */
  gate?: GateRule | null;
}

/**
 * An offline verdict. `tid` is read even from a token whose signature fails (null when unreadable).
 * `attention` and `checkin_texts` are the notes shown at the gate (the type's, then the ticket's).
 */
export interface OfflineVerdict extends GateNotes {
  verdict: 'admit' | 'reject' | 'exit';
  reason: OfflineOutcome;
  tid: string | null;
  /** The verified claims; null when the signature did not verify. */
  claims: TicketClaims | null;
  /** Why the entry rules refuse (`not_valid_now`, `entry_limit_reached`, `too_soon`): the 403's details. */
  refusal: RuleRefusal | null;
}

/** No note for the gate (a token that did not verify, or of another event). */
const noNotes = (): GateNotes => ({ attention: false, checkin_texts: [] });

const reject = (
  reason: OfflineOutcome,
  tid: string | null,
  claims: TicketClaims | null,
  notes: GateNotes = noNotes(),
  refusal: RuleRefusal | null = null,
): OfflineVerdict => ({ verdict: 'reject', reason, tid, claims, refusal, ...notes });

/** The verified claims, or null: alg, version, kid, signature and issuer, as the issuer checks them. */
async function verifiedClaims(token: string, input: VerdictInput, header: Record<string, unknown>) {
  if (header.alg !== 'EdDSA' || typeof header.kid !== 'string') return null;
  const key = await input.keys.key(header.kid);
  if (key === null) return null;
  try {
    const { payload } = await compactVerify(token, key, { algorithms: ['EdDSA'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as TicketClaims;
    if (!TOKEN_VERSIONS.includes(claims.v) || claims.iss !== input.iss) return null;
    return typeof claims.tid === 'string' && typeof claims.eid === 'string' ? claims : null;
  } catch {
    return null;
  }
}

/** Whether this token was replaced by a reissue: its `jti` is superseded, or it has none and null is. */
function isSuperseded(claims: TicketClaims, knowledge: LocalKnowledge): boolean {
  const jtis = knowledge.superseded.get(claims.tid);
  if (!jtis) return false;
  return jtis.has(typeof claims.jti === 'string' ? claims.jti : null);
}

/** Where the device knows the holder is: came in (the feed, or admitted here), and went out since. */
function holderOf(tid: string, knowledge: LocalKnowledge): HolderState {
  if (!knowledge.checkedIn.has(tid) && !knowledge.admitted.has(tid)) return 'unused';
  return knowledge.out?.has(tid) === true ? 'out' : 'inside';
}

/** The facts of the shared rules, as the device knows them, for a token whose signature verified. */
function factsOf(claims: TicketClaims, input: VerdictInput): TicketFacts {
  const { knowledge } = input;
  return {
    signatureValid: true,
    sameEvent: claims.eid === input.eid,
    revoked: knowledge.revoked.has(claims.tid) || isSuperseded(claims, knowledge),
    holder: holderOf(claims.tid, knowledge),
    expired: typeof claims.exp === 'number' && claims.exp * 1000 <= input.scannedAt.getTime(),
    ticketType: claims.ticket_type,
  };
}

/** The verified claims of the token, or the verdict that ends the decision (unreadable, bad signature). */
async function readVerified(input: VerdictInput): Promise<TicketClaims | OfflineVerdict> {
  const read = readToken(input.token);
  if (read === null) return reject('invalid_signature', null, null);
  const unverifiedTid = typeof read.payload.tid === 'string' ? read.payload.tid : null;
  const claims = await verifiedClaims(input.token, input, read.header);
  return claims ?? reject('invalid_signature', unverifiedTid, null);
}

const isVerdict = (value: TicketClaims | OfflineVerdict): value is OfflineVerdict => 'verdict' in value;

/** The declared rules of the token's ticket type, where the device knows the event's. */
const typeOf = (claims: TicketClaims, knowledge: LocalKnowledge) =>
  rulesFor(knowledge.ticketTypes ?? [], claims.ticket_type);

/**
 * The notes shown at the gate for a verified token of this event: its type's, then its ticket's (from
 * the feed). A token of another event has none here.
 */
function notesOf(claims: TicketClaims, input: VerdictInput): GateNotes {
  if (claims.eid !== input.eid) return noNotes();
  const own = input.knowledge.notes?.get(claims.tid) ?? { attention: false, checkin_text: null };
  return gateNotes(typeOf(claims, input.knowledge), own);
}

/** When the rules judge the entry: the scan's time, the token's `nbf` (`valid_from`), the known entries. */
function timingOf(claims: TicketClaims, input: VerdictInput): EntryTiming {
  const nbf = claims.nbf;
  return {
    scannedAt: input.scannedAt.toISOString(),
    validFrom: typeof nbf === 'number' && Number.isFinite(nbf) ? new Date(nbf * 1000).toISOString() : null,
    entries: input.knowledge.entries?.get(claims.tid) ?? [],
  };
}

/** The event's side of the rules as the device knows them: calendar, re-entry, automatic exit. */
const eventOf = (knowledge: LocalKnowledge): EventRules => ({
  ...(knowledge.calendar ?? DEFAULT_EVENT_RULES),
  reentry: knowledge.reentry === true,
  auto_exit: knowledge.autoExit === true,
});

/**
 * The offline decision, pure (no I/O, no clock): the shared rules (`judgeEntry`, the issuer's order
 * of checks) on what the device knows. invalid_signature, wrong_event, revoked (a superseded token
 * included), ticket_type_not_admitted (at a declared gate), not_valid_now (before the token's `nbf`,
 * another event day than the type's, outside its hours), already_used (by the type's or the event's
 * re-entry), entry_limit_reached, too_soon, expired, else valid. Every verdict carries the notes.
 */
export async function decideOffline(input: VerdictInput): Promise<OfflineVerdict> {
  const claims = await readVerified(input);
  if (isVerdict(claims)) return claims;
  const { knowledge } = input;
  const context = { gate: input.gate ?? null, event: eventOf(knowledge), type: typeOf(claims, knowledge) };
  const { outcome, refusal } = judgeEntry(factsOf(claims, input), timingOf(claims, input), context);
  const notes = notesOf(claims, input);
  if (outcome === 'valid')
    return { verdict: 'admit', reason: 'valid', tid: claims.tid, claims, refusal: null, ...notes };
  return reject(outcome, claims.tid, claims, notes, refusal);
}

/**
 * The offline decision on an exit scan, on the shared rules (`exitOutcome`): the signature and the
 * event as at an entry; a revoked ticket (or superseded token) is let out (the issuer counts a holder
 * inside out); a holder the device knows is not inside (never came in, or went out) is `not_inside`;
 * otherwise `exit`. Never refused for the gate or the expiry: the holder is leaving.
 */
export async function decideExitOffline(input: VerdictInput): Promise<OfflineVerdict> {
  const claims = await readVerified(input);
  if (isVerdict(claims)) return claims;
  const facts = factsOf(claims, input);
  // A holder counted out by the automatic exit is not inside, whether or not the feed said so yet.
  const holder = holderAtScan(
    facts.holder,
    timingOf(claims, input).entries,
    input.scannedAt.toISOString(),
    eventOf(input.knowledge),
  );
  const outcome = exitOutcome({ ...facts, holder });
  const notes = notesOf(claims, input);
  if (outcome === 'checked_out' || outcome === 'revoked') {
    return { verdict: 'exit', reason: outcome, tid: claims.tid, claims, refusal: null, ...notes };
  }
  return reject(outcome, claims.tid, claims, notes);
}
