/**
 * Single sign-on attempts (table `sso_logins`): what the callback needs of its start, kept for a few
 * minutes between the redirect to the provider and its answer, and used once.
 */

/** One attempt. Instants are stored instants (see `toStored`). */
export interface SsoLoginRecord {
  /** SHA-256 of the attempt's `state` (base64url): the state itself is stored nowhere. */
  state_hash: string;
  /** The PKCE code verifier and the nonce, sealed with the key-encryption key (see `key-encryption.ts`). */
  sealed: string;
  created_at: string;
  expires_at: string;
}

export interface SsoStore {
  /** Stores an attempt; attempts that expired by its creation are deleted with it. */
  putLogin(login: SsoLoginRecord): Promise<void>;
  /**
   * Deletes the attempt with this state hash and answers it, or null when there is none: of two
   * callbacks with one state, on one instance or two, only one gets it. Expiry is the caller's to judge.
   */
  takeLogin(stateHash: string): Promise<SsoLoginRecord | null>;
}

/** SQL shared by both stores, with `?` placeholders (PostgreSQL numbers them). */
export const PURGE_SSO_LOGINS_SQL = 'DELETE FROM sso_logins WHERE expires_at <= ?';
export const INSERT_SSO_LOGIN_SQL =
  'INSERT INTO sso_logins (state_hash, sealed, created_at, expires_at) VALUES (?, ?, ?, ?)';
export const TAKE_SSO_LOGIN_SQL =
  'DELETE FROM sso_logins WHERE state_hash = ? RETURNING state_hash, sealed, created_at, expires_at';
