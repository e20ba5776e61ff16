/**
 * A check-in as the stores see it: the attempt, the domain's verdict and the ticket's move, the holder's
 * presence, and the result.
 */
import type { GateRecord } from './event-records.ts';
import type { TicketRecord } from './ticket-records.ts';

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
  /**
   * A counted entry's event day in the event's zone (`YYYY-MM-DD`), and whether it is the ticket's first
   * counted entry of that day: the day's holders move by one then.
   */
  day?: { date: string; first: boolean };
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
