import type { ApiKeyRecord } from './store.ts';

/** How an API key stands at `now` (stored instants compare as text): revoked and expired keys are refused. */
export function keyStanding(
  key: Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'>,
  now: string,
): true | 'revoked' | 'expired' {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at <= now) return 'expired';
  return true;
}

/** The check-in answer for a key that no longer stands, or null when it does (an unknown key cannot stand). */
export function keyRefusal(
  key: Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'> | null,
  now: string,
): { kind: 'key_refused'; why: 'revoked' | 'expired' } | null {
  const standing = key ? keyStanding(key, now) : 'revoked';
  return standing === true ? null : { kind: 'key_refused', why: standing };
}
