/** What the stores keep of enrolment tokens and scanners' API keys, and what an enrolment reads and answers. */

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
  /** The scanner's clock minus the issuer's at its last upload that said when it was sent, in seconds; null before. */
  clock_offset_s?: number | null;
}

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
