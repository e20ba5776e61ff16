import type { SigningKeyRecord } from './records.ts';

/** The issuer's signing keys (private halves sealed). Every method is one transaction; each says what it guarantees. */
export interface SigningKeyStore {
  /** Inserts a signing key and retires every other active one, atomically. */
  addSigningKey(key: SigningKeyRecord): Promise<void>;
  /** Inserts the first signing key unless an active one exists; returns the active key. */
  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord>;
  /** The key with this kid (removed ones included), or null. */
  getSigningKey(kid: string): Promise<SigningKeyRecord | null>;
  /** The active key (the newest not retired), or null. */
  getActiveSigningKey(): Promise<SigningKeyRecord | null>;
  /** All keys, newest first. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Marks a retired key removed; refuses the active key. */
  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'>;
}
