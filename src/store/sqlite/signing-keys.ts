import type { SigningKeyRecord } from '../store.ts';
import { type Row, toSigningKey } from '../rows.ts';
import type { SqliteContext } from './context.ts';

export function addSigningKey(c: SqliteContext, key: SigningKeyRecord): Promise<void> {
  return c.tx(() => {
    c.run('UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL', key.created_at);
    insertSigningKey(c, key);
  });
}

export function ensureSigningKey(c: SqliteContext, candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
  return c.tx(() => {
    const active = activeSigningKey(c);
    if (active) return active;
    insertSigningKey(c, candidate);
    return candidate;
  });
}

function insertSigningKey(c: SqliteContext, key: SigningKeyRecord): void {
  c.run(
    `INSERT INTO signing_keys (kid, public_jwk, private_key_enc, created_at, retired_at, removed_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    key.kid,
    JSON.stringify(key.public_jwk),
    key.private_key_enc,
    key.created_at,
    key.retired_at,
    key.removed_at,
  );
}

function activeSigningKey(c: SqliteContext): SigningKeyRecord | null {
  const row = c.one<Row>('SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1');
  return row ? toSigningKey(row) : null;
}

export async function getSigningKey(c: SqliteContext, kid: string): Promise<SigningKeyRecord | null> {
  const row = c.one<Row>('SELECT * FROM signing_keys WHERE kid = ?', kid);
  return row ? toSigningKey(row) : null;
}

export async function getActiveSigningKey(c: SqliteContext): Promise<SigningKeyRecord | null> {
  return activeSigningKey(c);
}

export async function listSigningKeys(c: SqliteContext): Promise<SigningKeyRecord[]> {
  return c.all<Row>('SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC').map(toSigningKey);
}

export function removeSigningKey(c: SqliteContext, kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
  return c.tx(() => {
    const key = c.one<Row>('SELECT retired_at FROM signing_keys WHERE kid = ?', kid);
    if (!key) return 'unknown';
    if (key.retired_at === null) return 'active';
    c.run('UPDATE signing_keys SET removed_at = ? WHERE kid = ? AND removed_at IS NULL', at, kid);
    return 'removed';
  });
}
