/**
 * What the stores keep and hand back: signing keys, console sessions and the shape of pages. Instants are
 * strings in the stored form of `domain/time.ts`. The records of each concern have their own file:
 * event-records.ts, ticket-records.ts, scanner-records.ts, check-in-records.ts, scan-log-records.ts,
 * feed-records.ts.
 */

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
