import type { SigningKeyRecord } from '../store.ts';
import { SqliteContext } from './context.ts';
import {
  addSigningKey,
  ensureSigningKey,
  getActiveSigningKey,
  getSigningKey,
  listSigningKeys,
  removeSigningKey,
} from './signing-keys.ts';
import type { SigningKeyStore } from '../signing-key-store.ts';

/** The issuer's signing keys (private halves sealed). (Sqlite: see ../signing-key-store.ts.) */
export class SqliteSigningKeyStore implements SigningKeyStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return addSigningKey(this.b.ctx, key);
  }

  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return ensureSigningKey(this.b.ctx, candidate);
  }

  getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    return getSigningKey(this.b.ctx, kid);
  }

  getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return getActiveSigningKey(this.b.ctx);
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    return listSigningKeys(this.b.ctx);
  }

  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return removeSigningKey(this.b.ctx, kid, at);
  }
}
