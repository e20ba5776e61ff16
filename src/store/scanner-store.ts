import type { Page } from './records.ts';
import type {
  ApiKeyRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  NewApiKey,
  RedeemResult,
  ScannerNamer,
} from './scanner-records.ts';

/** Enrolment tokens and the scanners' API keys. Every method is one transaction; each says what it guarantees. */
export interface ScannerStore {
  /** Inserts a new enrolment token (its hash only). */
  createEnrollmentToken(token: EnrollmentTokenRecord): Promise<void>;
  /** The event's enrolment tokens, newest first, each with the scanner that used it (if any). */
  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]>;
  /** Revokes an unused token (used or revoked ones are left as they are); null if unknown. */
  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null>;
  /**
   * Exchanges a token for an API key: marks the token used and inserts the key, or refuses.
   * Concurrent calls with one token see exactly one `enrolled`. A key without `scanner_name` is
   * named by `nameScanner` from facts read in the same transaction; concurrent enrolments in one
   * event are named one after the other, so two never count the same scanners. With `onlyEvent`, a
   * token of another event is refused (`other_event`) and stays unused.
   */
  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult>;
  /** The API key with this hash, whatever its state, or null. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Records that the key was used at `at` (only moves last_seen_at forward). */
  touchApiKey(apiKeyId: string, at: string): Promise<void>;
  /** Keeps the scanner's last measured clock offset (its clock minus the issuer's, whole seconds). */
  recordClockOffset(apiKeyId: string, offsetSeconds: number): Promise<void>;
  /** Revokes the key once; null if unknown. */
  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null>;
  /** The event's scanner records (one per API key) in api_key_id order, a page at a time (cursor: the last api_key_id seen). */
  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>>;
  /** The API key an enrolment token was exchanged for, or null. */
  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null>;
}
