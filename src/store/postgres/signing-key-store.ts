import type { SigningKeyRecord } from '../store.ts';
import type { Tx } from './queries.ts';
import * as signingKeys from './signing-keys.ts';
import type pg from 'pg';
import type { SigningKeyStore } from '../signing-key-store.ts';

/** The issuer's signing keys (private halves sealed). (PostgreSQL: see ../signing-key-store.ts.) */
export class PostgresSigningKeyStore implements SigningKeyStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return signingKeys.addSigningKey(this.b.tx, key);
  }

  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return signingKeys.ensureSigningKey(this.b.tx, candidate);
  }

  getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    return signingKeys.getSigningKey(this.b.pool, kid);
  }

  getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return signingKeys.activeSigningKey(this.b.pool);
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    return signingKeys.listSigningKeys(this.b.pool);
  }

  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return signingKeys.removeSigningKey(this.b.tx, kid, at);
  }
}
