import type { ApiKeyRecord, Store } from '../store/store.ts';
import { hashesEqual, hashSecret } from './ids.ts';

/** Compared against when no stored hash exists, so that a miss costs what a hit costs. */
const NO_MATCH = hashSecret('no credential has this hash');

/** True when the presented secret hashes to the stored hash; constant time, also when there is none. */
export function matchesHash(presented: string, storedHash: string | null): boolean {
  const presentedHash = hashSecret(presented);
  const equal = hashesEqual(presentedHash, storedHash ?? NO_MATCH);
  return equal && storedHash !== null;
}

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; why: 'unknown' | 'revoked' | 'expired' };

/** Looks up an API key by the hash of the presented secret and judges it at `now`. */
export async function checkApiKey(store: Store, presented: string, now: string): Promise<KeyCheck> {
  const key = await store.findApiKey(hashSecret(presented));
  if (!matchesHash(presented, key?.key_hash ?? null) || !key) return { ok: false, why: 'unknown' };
  if (key.revoked_at !== null) return { ok: false, why: 'revoked' };
  if (key.expires_at <= now) return { ok: false, why: 'expired' };
  return { ok: true, key };
}
