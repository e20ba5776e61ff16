/**
 * What the stores keep and hand back: the records, a check-in's attempt, verdict and result, and the
 * shapes of pages. Instants are strings in the stored form of `domain/time.ts`.
 */
import type { TicketTypeRules } from '@ticket-issuer/protocol';

export interface EventRecord {
  eid: string;
  name: string;
  event_date: string;
  ends_at: string | null;
  created_at: string;
  /** A ticket that went out may come in again (`valid` once more); off by default, as the spec says. */
  reentry: boolean;
  /** How many may be inside at once (the console warns near it; nobody is refused for it), or null. */
  capacity: number | null;
  /** The event's zone (an IANA name such as `Europe/Berlin`; `UTC` by default). */
  timezone: string;
  /** The local time ("HH:MM") each event day starts at; `00:00` by default. */
  day_starts_at: string;
  /** Holders still inside are counted out at the start of each event day; off by default. */
  auto_exit: boolean;
}

/** What `PATCH /admin/v1/events/{eid}` may change; absent fields stay as they are. */
export interface EventSettings {
  reentry?: boolean;
  capacity?: number | null;
  timezone?: string;
  day_starts_at?: string;
  auto_exit?: boolean;
}

/** A ticket type declared for an event: its entry rules, under the label's key (`ticketTypeKey`). */
export interface TicketTypeRecord extends TicketTypeRules {
  eid: string;
  updated_at: string;
}

/** A gate declared for an event: which ticket types it admits (null: every type). */
export interface GateRecord {
  eid: string;
  gate_id: string;
  name: string;
  admits: string[] | null;
  updated_at: string;
}

export interface EventCounters {
  issued: number;
  checked_in: number;
  revoked: number;
  /** Tickets let in twice by offline scanners (see `listConflicts`). */
  conflicts: number;
}

export interface TicketRecord {
  tid: string;
  eid: string;
  holder_name: string;
  ticket_type: string;
  issued_at: string;
  expires_at: string | null;
  checked_in_at: string | null;
  revoked_at: string | null;
  revoke_reason: string | null;
  ticket_token: string;
  /** The organizer's own id of the ticket (an order line, a CSV row), unique per event; null when none. */
  external_id: string | null;
  /** Not valid for entry before this instant (the token's `nbf`); null: valid from issue. */
  valid_from: string | null;
  /** The holder needs attention at the gate. */
  attention: boolean;
  /** A text shown at the gate for this ticket, or null. */
  checkin_text: string | null;
}

export interface EnrollmentTokenRecord {
  token_id: string;
  token_hash: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  key_expires_at: string;
  created_at: string;
  used_at: string | null;
  revoked_at: string | null;
  /** The scanner it enrols may find holders by name (`scope.allow_search`); absent: it may not. */
  allow_search?: boolean;
}

/** An enrolment token as the organizer's list shows it: with the scanner it enrolled, once used. */
export interface EnrollmentTokenListing extends EnrollmentTokenRecord {
  /** The scanner that used the token (from the API key it was exchanged for); null while unused. */
  scanner_id: string | null;
  scanner_name: string | null;
}

/** An API key and the scanner it was issued to: the admin interface's scanner record. */
export interface ApiKeyRecord {
  api_key_id: string;
  key_hash: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  scanner_name: string | null;
  scanner_platform: string | null;
  token_id: string;
  enrolled_at: string;
  expires_at: string;
  last_seen_at: string | null;
  revoked_at: string | null;
  /** The scanner may find holders by name (from its enrolment token). */
  allow_search: boolean;
}

export type ScanOutcome =
  | 'valid'
  | 'already_used'
  | 'revoked'
  | 'wrong_event'
  | 'expired'
  | 'invalid_signature'
  | 'not_found'
  | 'idempotency_conflict'
  | 'refused'
  /** The scanner turned the holder away offline, and the issuer would have checked the ticket in: it stays unused. */
  | 'turned_away_offline'
  /** A declared gate that does not admit the ticket's type: 403, the ticket stays unused. */
  | 'ticket_type_not_admitted'
  /** Refused by the ticket type's entry rules (403): outside its days or hours, or before valid_from. */
  | 'not_valid_now'
  /** Refused by the ticket type's entry rules (403): max_entries or max_entries_per_day reached. */
  | 'entry_limit_reached'
  /** Refused by the ticket type's entry rules (403): too soon after the ticket's last entry. */
  | 'too_soon'
  /** An exit: the holder went out. */
  | 'checked_out'
  /** An exit of a ticket whose holder was not inside (never came in, or already out). */
  | 'not_inside';

/** One line of an event's scan log: a check-in attempt and what it got. */
export interface ScanRecord {
  scan_id: number;
  eid: string;
  tid: string;
  api_key_id: string;
  scanner_id: string;
  gate_id: string | null;
  idempotency_key: string;
  scanned_at: string;
  received_at: string;
  outcome: ScanOutcome;
  reason: string | null;
  replay: boolean;
  /** The scanner had already let the holder in on its own offline verdict. */
  admitted_offline: boolean;
  /** When the entry was annulled (its outcome stays `valid`), or null. */
  annulled_at: string | null;
  /** A check-in chosen from a search by the holder's name, with no ticket token. */
  manual: boolean;
  /** The enrolled name of the scanner (null when it gave none). */
  scanner_name: string | null;
  /** The ticket's holder (null for a tid that is not one of the event's tickets). */
  holder_name: string | null;
}

export interface SigningKeyRecord {
  kid: string;
  /** The public key as a JWK (OKP, Ed25519). */
  public_jwk: Record<string, string>;
  /** The private key, encrypted with the key-encryption key. */
  private_key_enc: string;
  created_at: string;
  retired_at: string | null;
  removed_at: string | null;
}

/** A check-in answer as first given; replays return it again. */
export interface StoredAnswer {
  http_status: number;
  body: unknown;
}

/**
 * A move of the ticket's state machine (`src/domain/ticket-state.ts`) that a verdict asks the store to
 * apply in the attempt's transaction: the holder comes in (a first entry of an unused ticket, or a
 * re-entry of a holder who went out) or goes out. A store applies a move only from the state it names,
 * so two concurrent attempts never apply the same one twice.
 */
export type TicketMove = { to: 'inside'; from: 'unused' | 'out' | 'inside'; at: string } | { to: 'out'; at: string };

/** What the domain decided for one check-in attempt, given the ticket as it is now. */
export interface CheckInVerdict {
  outcome: ScanOutcome;
  reason: string | null;
  /** The ticket's move, or null: nothing about the ticket changes. */
  move: TicketMove | null;
  /**
   * The scan counts as one of the ticket's entries (the limits' count): a `valid` entry, or an
   * entry the rules refuse now that a scanner had admitted offline (the holder did go in).
   */
  counted?: boolean;
  /**
   * After an entry that puts the holder inside: the automatic exit they missed (the event's `auto_exit`,
   * a day start after their latest entry that has passed already), made in the entry's transaction.
   */
  autoExitAt?: string;
  answer: StoredAnswer;
}

/** The domain's decision on an attempt, given what the store read in its transaction. */
export type CheckInDecider = (
  ticket: TicketRecord | null,
  gate: GateRecord | null,
  entries: readonly string[],
) => CheckInVerdict;

/** The same, with the holder's presence (locked for the transaction) read as well. */
export type PresenceDecider = (
  ticket: TicketRecord | null,
  presence: Presence | null,
  gate: GateRecord | null,
  entries: readonly string[],
) => CheckInVerdict;

/** Whether a ticket's holder is inside now, and when they last went out. */
export interface Presence {
  inside: boolean;
  checked_out_at: string | null;
}

/** Entries in one minute of scan time (`YYYY-MM-DDThh:mm`, UTC) at one gate (null: scans that named none). */
export interface ArrivalCount {
  minute: string;
  gate_id: string | null;
  entries: number;
}

/** An event's occupancy, read in one snapshot: who is inside, and entries and exits per gate. */
export interface Occupancy {
  inside: number;
  /** Per gate_id scanned at (null: scans that named no gate), in gate_id order. */
  gates: { gate_id: string | null; entries: number; exits: number }[];
}

export interface CheckInAttempt {
  eid: string;
  tid: string;
  idempotency_key: string;
  /** Canonical form of the request body; a replay must carry the same one. */
  fingerprint: string;
  api_key_id: string;
  scanner_id: string;
  gate_id: string | null;
  scanned_at: string;
  received_at: string;
  /**
   * The scanner's own offline verdict, when it sent one: true, it let the holder in; false, it turned
   * the holder away; null, it said nothing (an online scan, or a scanner older than the field).
   */
  admitted_offline: boolean | null;
  /** The scanner chose the ticket from a search by the holder's name (no ticket token); absent: false. */
  manual?: boolean;
  /**
   * Part of an upload of queued scans (`POST /api/v1/tickets/scans`): nobody waits at a gate for it, so
   * a store may let the scans of gates online go first. Absent: false.
   */
  queued?: boolean;
}

export type CheckInResult =
  | { kind: 'answered'; answer: StoredAnswer; replay: boolean }
  | { kind: 'conflict' }
  /** The attempt's API key was revoked or expired by the time the transaction ran: nothing was stored. */
  | { kind: 'key_refused'; why: 'revoked' | 'expired' };

/** What a scanner enrolled without a name is named from, read in the enrolment's transaction. */
export interface ScannerNameFacts {
  /** The gate the token is for (null: none), and its declared name (null: none, or not declared). */
  gate_id: string | null;
  gate_name: string | null;
  /** The name this scanner_id got at its last enrolment at this gate of this event, if any. */
  previous_name: string | null;
  /** How many other scanners (distinct scanner_ids) enrolled at this gate of this event before. */
  enrolled_before: number;
}

/** Names a scanner that came without a name (the domain's rule). */
export type ScannerNamer = (facts: ScannerNameFacts) => string;

/** Why a token was not redeemed; `other_event`: it is good, but for another event than the one required. */
export type RedeemFailure = 'unknown' | 'used' | 'expired' | 'revoked' | 'other_event';

export type RedeemResult =
  { kind: 'enrolled'; key: ApiKeyRecord; token: EnrollmentTokenRecord } | { kind: 'refused'; why: RedeemFailure };

export interface NewApiKey {
  api_key_id: string;
  key_hash: string;
  scanner_id: string;
  scanner_name: string | null;
  scanner_platform: string | null;
}

export type ChangeType = 'checked_in' | 'checked_out' | 'revoked' | 'token_superseded' | 'ticket_notes' | 'annulled';

/** One entry of an event's changes feed; positions count 1, 2, 3… per event, without gaps. */
export interface ChangeRecord {
  eid: string;
  position: number;
  type: ChangeType;
  tid: string;
  at: string;
  /** For `checked_in` and `checked_out`: who let the holder in or out, and at which gate (null: an automatic exit). */
  scanner_id: string | null;
  gate_id: string | null;
  /** For `checked_out` only: true for an automatic exit at the start of an event day. */
  auto?: boolean;
  /** For `token_superseded`: the superseded token's id (null for a token issued without one). */
  jti: string | null;
  /** For `ticket_notes` only: the ticket's gate notes as this change set them. */
  attention?: boolean;
  checkin_text?: string | null;
  /** For `checked_in`: the entry's idempotency key; for `annulled`: the key of the entry undone. */
  idempotency_key?: string;
}

/** A scan as the conflicts report shows it. */
export interface ConflictScan {
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  scanned_at: string;
  received_at: string;
  admitted_offline: boolean;
}

/** A duplicate of the conflicts report: `reason` is the entry rules' refusal, null for `already_used`. */
export interface ConflictDuplicate extends ConflictScan {
  reason: string | null;
}

/**
 * A ticket let in twice, or against its entry rules: its entry (see conflicts.ts) and the scans that
 * could not have known of it, or that the rules refused.
 */
export interface ConflictRecord {
  tid: string;
  holder_name: string;
  first: ConflictScan;
  duplicates: ConflictDuplicate[];
}

export type ReissueFailure = 'unknown' | 'revoked' | 'used' | 'changed';

export type ReissueResult = { kind: 'reissued'; ticket: TicketRecord } | { kind: 'refused'; why: ReissueFailure };

/** An organizer's console session; only the hash of its id is kept. */
export interface AdminSessionRecord {
  session_hash: string;
  /**
   * A digest of the admin token's hash at sign-in: a new admin token ends every session opened with it.
   * A person's session carries PERSON_SESSION_TAG instead: the admin token has nothing to do with it.
   */
  admin_token_tag: string;
  /** The person who signed in; null for a session opened with the admin token. */
  user_id: string | null;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, whatever the activity. */
  expires_at: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * A page of an event's scan log: like the changes feed, it always names a cursor (the last line's
 * place in the store's commit order, else the one the page was read after) and says whether more
 * lines follow now.
 */
export interface ScanLogPage {
  items: ScanRecord[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * A page of an event's scan log, newest first: `next_cursor` reads the older scans (null at the log's
 * start), `newer_cursor` is the `listScans` cursor that follows the log from the newest scan shown.
 */
export interface RecentScanPage {
  items: ScanRecord[];
  next_cursor: string | null;
  newer_cursor: string;
}
