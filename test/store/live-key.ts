import assert from 'node:assert/strict';
import { hashSecret, newApiKeyId, newEnrollmentTokenId, newEventId, newSecret } from '../../src/domain/ids.ts';
import type { Store } from '../../src/store/store.ts';

/** An API key in good standing, for the mix's check-ins. */
export async function liveKey(store: Store): Promise<string> {
  const at = '2026-06-01T12:00:00.000Z';
  const eid = newEventId();
  await store.events.createEvent({
    eid,
    name: 'Keys',
    event_date: at,
    ends_at: null,
    created_at: at,
    reentry: false,
    capacity: null,
    timezone: 'UTC',
    day_starts_at: '00:00',
    auto_exit: false,
  });
  const token = {
    token_id: newEnrollmentTokenId(),
    token_hash: hashSecret(newSecret('st_')),
    eid,
    gate_id: null,
    expires_at: '2026-06-02T12:00:00.000Z',
    key_expires_at: '2026-06-09T12:00:00.000Z',
    created_at: at,
    used_at: null,
    revoked_at: null,
  };
  await store.scanners.createEnrollmentToken(token);
  const api_key_id = newApiKeyId();
  const key = {
    api_key_id,
    key_hash: hashSecret(newSecret('sk_')),
    scanner_id: 's',
    scanner_name: null,
    scanner_platform: null,
  };
  assert.equal((await store.scanners.redeemEnrollmentToken(token.token_hash, at, key)).kind, 'enrolled');
  return api_key_id;
}
