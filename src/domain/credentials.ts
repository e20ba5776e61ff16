import type { ApiKeyRecord, Store } from '../store/store.ts';
import { hashesEqual, hashSecret } from './ids.ts';

/** Compared against when no stored hash exists, so that a miss costs what a hit costs. */
const NO_MATCH = hashSecret('no credential has this hash');

/** True when the presented secret hashes to the stored hash; constant time, also when there is none. */
export function matchesHash(presented: string, storedHash: string | null): boolean {
  return hashMatches(hashSecret(presented), storedHash);
}

/** True when a presented secret's hash equals the stored hash; constant time, also when there is none. */
function hashMatches(presentedHash: string, storedHash: string | null): boolean {
  const equal = hashesEqual(presentedHash, storedHash ?? NO_MATCH);
  return equal && storedHash !== null;
}

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; why: 'unknown' | 'revoked' | 'expired' };

/** Looks up an API key by the hash of the presented secret and judges it at `now`. */
export async function checkApiKey(store: Store, presented: string, now: string): Promise<KeyCheck> {
  // Hashed once: the hash finds the key and is then compared in constant time with what was found.
  const presentedHash = hashSecret(presented);
  const key = await store.findApiKey(presentedHash);
  if (!hashMatches(presentedHash, key?.key_hash ?? null) || !key) return { ok: false, why: 'unknown' };
  if (key.revoked_at !== null) return { ok: false, why: 'revoked' };
  if (key.expires_at <= now) return { ok: false, why: 'expired' };
  return { ok: true, key };
}
