import { type Row, toSigningKey } from '../rows.ts';
import type { SigningKeyRecord } from '../store.ts';
import { all, type Db, one, type Tx } from './queries.ts';

/**
 * Advisory lock namespace of signing-key changes (the first key of the two-int form), chosen to be
 * unlikely to collide with another application sharing the database.
 */
const LOCK_SIGNING_KEYS = 0x54490002;

/** Inserts a signing key and retires every other active one, atomically. */
export function addSigningKey(tx: Tx, key: SigningKeyRecord): Promise<void> {
  return tx(async (db) => {
    // Without the lock, two concurrent rotations would each miss the other's new key and both stay active.
    await lockSigningKeys(db);
    await db.query('UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL', [key.created_at]);
    await insertSigningKey(db, key);
  });
}

/** Inserts the first signing key unless an active one exists; returns the active key. */
export function ensureSigningKey(tx: Tx, candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
  return tx(async (db) => {
    await lockSigningKeys(db);
    const active = await activeSigningKey(db);
    if (active) return active;
    await insertSigningKey(db, candidate);
    return candidate;
  });
}

/** The key with this kid (removed ones included), or null. */
export async function getSigningKey(db: Db, kid: string): Promise<SigningKeyRecord | null> {
  const row = await one<Row>(db, 'SELECT * FROM signing_keys WHERE kid = $1', [kid]);
  return row ? toSigningKey(row) : null;
}

/** The active key (the newest not retired), or null. */
export async function activeSigningKey(db: Db): Promise<SigningKeyRecord | null> {
  const row = await one<Row>(
    db,
    'SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1',
  );
  return row ? toSigningKey(row) : null;
}

/** All keys, newest first. */
export async function listSigningKeys(db: Db): Promise<SigningKeyRecord[]> {
  return (await all<Row>(db, 'SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC')).map(toSigningKey);
}

/** Marks a retired key removed; refuses the active key. */
export function removeSigningKey(tx: Tx, kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
  return tx(async (db) => {
    // Lock the row so a concurrent rotation cannot change its state between the check and the update.
    const key = await one<Row>(db, 'SELECT retired_at FROM signing_keys WHERE kid = $1 FOR UPDATE', [kid]);
    if (!key) return 'unknown';
    if (key.retired_at === null) return 'active';
    await db.query('UPDATE signing_keys SET removed_at = $1 WHERE kid = $2 AND removed_at IS NULL', [at, kid]);
    return 'removed';
  });
}

async function lockSigningKeys(db: Db): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, 0)', [LOCK_SIGNING_KEYS]);
}

async function insertSigningKey(db: Db, key: SigningKeyRecord): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (kid, public_jwk, private_key_enc, created_at, retired_at, removed_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [key.kid, JSON.stringify(key.public_jwk), key.private_key_enc, key.created_at, key.retired_at, key.removed_at],
  );
}
