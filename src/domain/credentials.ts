import type { ApiKeyRecord, Store } from '../store/store.ts';
import { keyStanding } from '../store/key-standing.ts';
import { IssuerError } from './errors.ts';
import { FreshCache } from './fresh-cache.ts';
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

/** The refusal of an API key that is missing, unknown, revoked or expired: 401, saying why when the key exists. */
export function unauthorizedKey(why: 'unknown' | 'revoked' | 'expired'): IssuerError {
  return new IssuerError(
    'UNAUTHORIZED',
    why === 'unknown' ? 'a valid API key is required (Authorization: Bearer <API_KEY>)' : `the API key is ${why}`,
  );
}

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; why: 'unknown' | 'revoked' | 'expired' };

/**
 * Keys found recently, by the hash of the presented credential, trusted for a second (see
 * FreshCache: a burst of requests with one key reads it once, and under steady traffic none waits
 * for it to be read again). Only a caller that judges the key again where it acts may use it:
 * check-in does, inside its transaction, so a key revoked on any instance is refused on its very next
 * check-in all the same. Hashes that find no key are not remembered: made-up secrets cannot fill it.
 */
export class RecentKeys {
  private readonly cache: FreshCache<string, ApiKeyRecord | null>;

  constructor(ttlMs = 1000, capacity = 10_000) {
    this.cache = new FreshCache({ ttlMs, capacity, keep: (key) => key !== null });
  }

  /** The key stored under this hash, remembered or read with `read`; a failed read fails every request that waited for it. */
  lookup(presentedHash: string, read: () => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    return this.cache.get(presentedHash, read);
  }
}

/**
 * Looks up an API key by the hash of the presented secret and judges it at `now`. With `recent`,
 * a key found within the last second is taken from there instead of the store.
 */
export async function checkApiKey(
  store: Store,
  presentedHash: string,
  now: string,
  recent: RecentKeys | null = null,
): Promise<KeyCheck> {
  // The hash finds the key and is then compared in constant time with what was found.
  const find = async () => {
    const key = await store.scanners.findApiKey(presentedHash);
    return hashMatches(presentedHash, key?.key_hash ?? null) ? key : null;
  };
  const key = await (recent ? recent.lookup(presentedHash, find) : find());
  if (!key) return { ok: false, why: 'unknown' };
  const standing = keyStanding(key, now);
  return standing === true ? { ok: true, key } : { ok: false, why: standing };
}
