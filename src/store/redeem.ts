import type { ApiKeyRecord, EnrollmentTokenRecord, NewApiKey, RedeemFailure } from './store.ts';

/**
 * Whether a token (as found, locked, inside the transaction) may be redeemed at `at`, and the API
 * key it then gives. Shared by every backend so that they refuse alike and in the same order. A good
 * token for another event than `onlyEvent` (when given) is refused and stays unused.
 */
export function redemption(
  token: EnrollmentTokenRecord | null,
  at: string,
  key: NewApiKey,
  onlyEvent?: string,
): { refused: RedeemFailure } | { token: EnrollmentTokenRecord; record: ApiKeyRecord } {
  if (!token) return { refused: 'unknown' };
  if (token.used_at !== null) return { refused: 'used' };
  if (token.revoked_at !== null) return { refused: 'revoked' };
  if (token.expires_at <= at) return { refused: 'expired' };
  if (onlyEvent !== undefined && token.eid !== onlyEvent) return { refused: 'other_event' };
  const record: ApiKeyRecord = {
    ...key,
    eid: token.eid,
    gate_id: token.gate_id,
    token_id: token.token_id,
    enrolled_at: at,
    expires_at: token.key_expires_at,
    last_seen_at: at,
    revoked_at: null,
    allow_search: token.allow_search === true,
    clock_offset_s: null,
  };
  return { token, record };
}
