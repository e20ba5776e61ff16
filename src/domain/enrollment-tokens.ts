import type { EnrollmentTokenListing, EnrollmentTokenRecord, EventRecord, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { invalidRequest } from './errors.ts';
import { defaultKeyExpiry, instantField } from './events.ts';
import { ENROLLMENT_TOKEN_PREFIX, hashSecret, newEnrollmentTokenId, newSecret } from './ids.ts';
import { HOUR_MS, toStored, toWire } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

export interface NewEnrollmentToken {
  gate_id?: string | null;
  expires_at?: string | null;
  key_expires_at?: string | null;
  /** The scanner it enrols may find holders by name (default false). */
  allow_search?: boolean;
}

/** An enrolment token not redeemed within a week is refused. */
export const DEFAULT_TOKEN_LIFETIME_MS = 7 * 24 * HOUR_MS;

/** The setup link a scanner app opens from the QR code: the issuer's address and the token. */
export function setupUri(issuer: string, token: string): string {
  return `ticket-issuer://enroll?${new URLSearchParams({ iss: issuer, token }).toString()}`;
}

/**
 * The gate a token is for, as the event declares it: a gate_id that names a declared gate in another
 * case takes the declared spelling (so its scanner gets that gate's rules); `declared` says whether
 * one matched (null without a gate), so that a client can warn of a typo.
 */
async function declaredGate(
  store: Store,
  eid: string,
  gateId: string | null,
): Promise<{ gate_id: string | null; declared: boolean | null }> {
  if (gateId === null) return { gate_id: null, declared: null };
  const gates = await store.events.listGates(eid);
  const match =
    gates.find((gate) => gate.gate_id === gateId) ??
    gates.find((gate) => gate.gate_id.toLowerCase() === gateId.toLowerCase());
  return match ? { gate_id: match.gate_id, declared: true } : { gate_id: gateId, declared: false };
}

/**
 * Creates a single-use enrolment token; only its hash is stored and the token is returned once, with
 * whether its gate is one the event declares.
 */
export async function createEnrollmentToken(
  deps: { store: Store; clock: Clock },
  event: EventRecord,
  input: NewEnrollmentToken,
): Promise<{ record: EnrollmentTokenRecord; token: string; gateDeclared: boolean | null }> {
  const now = deps.clock.now();
  const token = newSecret(ENROLLMENT_TOKEN_PREFIX);
  const gate = await declaredGate(deps.store, event.eid, input.gate_id ?? null);
  const record: EnrollmentTokenRecord = {
    token_id: newEnrollmentTokenId(),
    token_hash: hashSecret(token),
    eid: event.eid,
    gate_id: gate.gate_id,
    expires_at: input.expires_at
      ? instantField('expires_at', input.expires_at)
      : toStored(new Date(now.getTime() + DEFAULT_TOKEN_LIFETIME_MS)),
    key_expires_at: input.key_expires_at
      ? instantField('key_expires_at', input.key_expires_at)
      : defaultKeyExpiry(event),
    created_at: toStored(now),
    used_at: null,
    revoked_at: null,
    allow_search: input.allow_search === true,
  };
  // A token or key that is dead on arrival is a mistake the organizer should hear about now.
  for (const field of ['expires_at', 'key_expires_at'] as const) {
    if (record[field] <= record.created_at) {
      const problem = input[field] ? 'must be in the future' : 'the event ended over 24 hours ago: give key_expires_at';
      throw invalidRequest(`${field} is in the past`, [{ field, problem }]);
    }
  }
  noteAudit({ target: record.token_id });
  await deps.store.scanners.createEnrollmentToken(record);
  return { record, token, gateDeclared: gate.declared };
}

/** The organizer's view of an enrolment token: never the token itself. */
export function enrollmentTokenView(record: EnrollmentTokenRecord) {
  return {
    token_id: record.token_id,
    eid: record.eid,
    gate_id: record.gate_id,
    expires_at: toWire(record.expires_at),
    key_expires_at: toWire(record.key_expires_at),
    created_at: toWire(record.created_at),
    used_at: toWire(record.used_at),
    revoked_at: toWire(record.revoked_at),
    allow_search: record.allow_search === true,
  };
}

/** Where a token stands at `now`: used outranks revoked (a used token cannot be revoked), revoked outranks expired. */
export type EnrollmentTokenStatus = 'open' | 'used' | 'revoked' | 'expired';

export function enrollmentTokenStatus(record: EnrollmentTokenRecord, now: string): EnrollmentTokenStatus {
  if (record.used_at !== null) return 'used';
  if (record.revoked_at !== null) return 'revoked';
  return record.expires_at <= now ? 'expired' : 'open';
}

/** A line of the organizer's token list: where the token stands and which scanner used it; never the token. */
export function enrollmentTokenListView(listing: EnrollmentTokenListing, now: string) {
  return {
    token_id: listing.token_id,
    gate_id: listing.gate_id,
    expires_at: toWire(listing.expires_at),
    key_expires_at: toWire(listing.key_expires_at),
    created_at: toWire(listing.created_at),
    status: enrollmentTokenStatus(listing, now),
    used_at: toWire(listing.used_at),
    scanner_id: listing.scanner_id,
    scanner_name: listing.scanner_name,
    allow_search: listing.allow_search === true,
  };
}
