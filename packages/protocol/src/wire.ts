/**
 * The wire format of the ticket verification API v1 and of the contract's additions: outcomes,
 * states, error codes and the shapes of requests and answers.
 */
import type { TicketTypeRules } from './entry-rules.ts';
import type { EventDays } from './event-days.ts';
import type { GatesAnswer } from './gates.ts';

/** The outcomes of a check-in (the spec's vocabulary). */
export const CHECK_IN_OUTCOMES = [
  'valid',
  'already_used',
  'revoked',
  'wrong_event',
  'expired',
  'invalid_signature',
] as const;
export type CheckInOutcome = (typeof CHECK_IN_OUTCOMES)[number];

/** What a scanner's own verdict may say: the spec's outcomes, a gate's refusal of the ticket type, an exit's. */
export type OfflineOutcome =
  | CheckInOutcome
  | 'ticket_type_not_admitted'
  | 'not_valid_now'
  | 'entry_limit_reached'
  | 'too_soon'
  | 'checked_out'
  | 'not_inside';

/** A ticket's states, as the status endpoint reports them. */
export const TICKET_STATES = ['valid', 'checked_in', 'revoked', 'expired'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/** The error codes of the spec's table. */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_TOKEN',
  'PROTOCOL_VERSION_UNSUPPORTED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'TOKEN_REVOKED',
  'NOT_FOUND',
  'IDEMPOTENCY_CONFLICT',
  'RATE_LIMITED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The envelope of every non-2xx answer. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** The body of `POST /api/v1/tickets/check-in`, the contract's optional fields included. */
export interface CheckInRequestBody {
  tid: string;
  eid: string;
  scanned_at: string;
  scanner_id: string;
  gate_id?: string;
  idempotency_key: string;
  ticket_token?: string;
  signature_valid?: boolean;
  admitted_offline?: boolean;
  /** Gate staff chose the ticket from a search by the holder's name (sent without `ticket_token`). */
  manual?: boolean;
}

/** The `ticket` object of a check-in answer. */
export interface CheckInTicket {
  tid: string;
  eid: string;
  holder_name?: string;
  ticket_type?: string;
  checked_in_at?: string | null;
  /** The ticket's count of entries (a `valid` answer counts itself). */
  entries?: number;
  /** The holder needs attention (the type's or the ticket's flag). */
  attention?: boolean;
  /** Texts shown at the gate: the type's, then the ticket's. */
  checkin_texts?: string[];
}

/** A check-in answer: 200 for five outcomes, 400 for `invalid_signature`. */
export interface CheckInAnswer {
  status: CheckInOutcome;
  ticket: CheckInTicket | null;
}

/** The statuses of an exit scan (`POST /api/v1/tickets/check-out`). */
export const CHECK_OUT_STATUSES = ['checked_out', 'not_inside', 'revoked', 'wrong_event'] as const;
export type CheckOutStatus = (typeof CHECK_OUT_STATUSES)[number];

/** An exit answer: 200 for four statuses (400 for `invalid_signature`, as a check-in). */
export interface CheckOutAnswer {
  status: CheckOutStatus | 'invalid_signature';
  ticket: (CheckInTicket & { checked_out_at?: string | null }) | null;
}

/** A ticket found by its holder's name (`GET /api/v1/events/{eid}/tickets/search`). */
export interface FoundHolder {
  tid: string;
  holder_name: string;
  ticket_type: string;
  status: TicketState;
  /** The holder is inside now. */
  inside: boolean;
  attention: boolean;
  checkin_texts: string[];
}

/** The answer of a search by the holder's name: at most 10 tickets, best matches first. */
export interface HolderSearchAnswer {
  tickets: FoundHolder[];
}

/** The enrolment answer. */
export interface EnrollAnswer {
  api_key: string;
  api_key_id: string;
  scope: {
    eid: string;
    event_name: string;
    event_date: string;
    gate_id: string | null;
    expires_at: string;
    /** The key may find holders by name (an issuer from before the field omits it: false). */
    allow_search?: boolean;
  };
  issuer: { name: string; iss: string };
  /** The name the issuer keeps for the scanner (its own choice when the request named none). */
  scanner_name?: string;
}

/** A public signing key of the discovery document. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: string;
  use: string;
}

/** The discovery document (`/.well-known/ticket-issuer.json`). */
export interface DiscoveryDocument {
  iss: string;
  name: string;
  protocol_versions: string[];
  endpoints: { enroll: string; check_in: string; check_out?: string; ticket_status: string; changes: string };
  jwks: { keys: PublicJwk[] };
  ticket_token: { format: string; alg: string };
  max_offline_scan_age_seconds: number;
}

/** The kinds of entry of the changes feed. */
export const CHANGE_TYPES = [
  'checked_in',
  'checked_out',
  'revoked',
  'token_superseded',
  'ticket_notes',
  'annulled',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** One entry of the changes feed. */
export type Change =
  | {
      type: 'checked_in';
      tid: string;
      at: string;
      scanner_id: string;
      gate_id: string | null;
      /** The entry's idempotency key: an `annulled` change names it (absent from issuers before the fifth release). */
      idempotency_key?: string | null;
    }
  | {
      type: 'checked_out';
      tid: string;
      at: string;
      scanner_id: string | null;
      gate_id: string | null;
      /** An automatic exit at the start of an event day. */
      auto?: boolean;
    }
  | { type: 'ticket_notes'; tid: string; attention: boolean; checkin_text: string | null; at: string }
  | { type: 'annulled'; tid: string; idempotency_key: string; scanner_id: string; at: string }
  | { type: 'revoked'; tid: string; at: string }
  | { type: 'token_superseded'; tid: string; jti: string | null; at: string };

/** A page of `GET /api/v1/events/{eid}/changes`. */
export interface ChangesPage {
  changes: Change[];
  next_cursor: string;
  has_more: boolean;
}

/** The signed claims of a ticket token (`jti` on tokens issued since the second release). */
export interface TicketClaims {
  v: number;
  iss: string;
  tid: string;
  eid: string;
  ticket_type: string;
  iat: number;
  /** The ticket's `valid_from` (Unix seconds), when it has one. */
  nbf?: number;
  exp?: number;
  jti?: string;
}

/** The setup URI of an enrolment token, as its QR code carries it. */
export const SETUP_URI_PREFIX = 'ticket-issuer://enroll?';

/** The answer of `GET /api/v1/events/{eid}/rules`: what a scanner needs to judge entries offline. */
export interface RulesAnswer extends GatesAnswer {
  timezone: string;
  day_starts_at: string;
  auto_exit: boolean;
  /** The event's first and last day when it has an end (`ends_at`); null: no date bounds it. */
  event_days: EventDays | null;
  ticket_types: TicketTypeRules[];
  /**
   * The issuer's `ANNUL_WINDOW_S`: devices judge an offline undo by it and keep their admissions at least
   * that long. Absent from an issuer before the fifth release (the default, `DEFAULT_ANNUL_WINDOW_S`).
   */
  annul_window_s?: number;
  /** The issuer's clock when it answered, ISO 8601 UTC; absent from an issuer before the fifth release. */
  server_time?: string;
}
