import type { ApiKeyRecord, Store } from '../store/store.ts';
import { keyStanding } from '../store/key-standing.ts';
import { IssuerError } from './errors.ts';
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
 * Keys found recently, by the hash of the presented credential, each for a second. Only a caller
 * that judges the key again where it acts may use it: check-in does, inside its transaction, so a
 * key revoked on any instance is refused on its very next check-in all the same.
 */
export class RecentKeys {
  private readonly entries = new Map<string, { key: ApiKeyRecord; until: number }>();
  /** The lookups under way by hash: a burst of requests with one key reads it once, not once each. */
  private readonly reading = new Map<string, Promise<ApiKeyRecord | null>>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly capacity = 10_000,
  ) {}

  /** The key found under this hash less than a second ago, or null. */
  get(presentedHash: string, nowMs: number): ApiKeyRecord | null {
    const entry = this.entries.get(presentedHash);
    if (!entry) return null;
    if (entry.until > nowMs) return entry.key;
    this.entries.delete(presentedHash);
    return null;
  }

  /**
   * The store's record under this hash, read once for every request that asks while the read runs (a
   * scanner's 1,000 queued scans arriving at once would otherwise take the store's every connection,
   * each waiting for the same row). A failed read fails every request that waited for it.
   */
  lookup(presentedHash: string, read: () => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    const pending = this.reading.get(presentedHash);
    if (pending) return pending;
    const reading = read().finally(() => this.reading.delete(presentedHash));
    this.reading.set(presentedHash, reading);
    return reading;
  }

  /** Remembers a key in good standing; a full cache starts afresh rather than grow. */
  set(presentedHash: string, key: ApiKeyRecord, nowMs: number): void {
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(presentedHash, { key, until: nowMs + this.ttlMs });
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
  const nowMs = Date.parse(now);
  const remembered = recent?.get(presentedHash, nowMs);
  if (remembered) {
    const standing = keyStanding(remembered, now);
    return standing === true ? { ok: true, key: remembered } : { ok: false, why: standing };
  }
  // The hash finds the key and is then compared in constant time with what was found.
  const find = () => store.scanners.findApiKey(presentedHash);
  const key = await (recent ? recent.lookup(presentedHash, find) : find());
  if (!hashMatches(presentedHash, key?.key_hash ?? null) || !key) return { ok: false, why: 'unknown' };
  const standing = keyStanding(key, now);
  if (standing !== true) return { ok: false, why: standing };
  recent?.set(presentedHash, key, nowMs);
  return { ok: true, key };
}
