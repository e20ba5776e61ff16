import type { ScannerNameFacts, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { matchesHash } from './credentials.ts';
import { IssuerError } from './errors.ts';
import { API_KEY_PREFIX, ENROLLMENT_TOKEN_PREFIX, hashSecret, isSecretShaped, newApiKeyId, newSecret } from './ids.ts';
import { toStored, toWire } from './time.ts';

export const PROTOCOL_VERSIONS = ['1'] as const;

export interface EnrollRequest {
  token: unknown;
  scanner_id: string;
  scanner_name?: string;
  scanner_platform?: string;
  protocol_version?: string;
  /**
   * The event the scanner can only be enrolled for (a device whose queued scans belong to it): a token
   * of another event is then refused (409 CONFLICT, `other_event`) and stays unused, no key is made.
   */
  expected_eid?: string;
}

export interface EnrollDeps {
  store: Store;
  clock: Clock;
  issuer: { name: string; iss: string };
}

/** Protocol versions are named as strings ("1"); anything else is unsupported. */
export function assertProtocolVersion(version: string | undefined): void {
  if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(version.trim())) {
    throw new IssuerError(
      'PROTOCOL_VERSION_UNSUPPORTED',
      `protocol version "${version.slice(0, 16)}" is not supported`,
      {
        supported: [...PROTOCOL_VERSIONS],
      },
    );
  }
}

/**
 * The name of a scanner enrolled without one (or with a blank one), so that the console and the scan
 * log never show a bare id: `<the gate's declared name, else its gate_id>, phone N`, or `Scanner N`
 * without a gate, N counting the scanners enrolled at that gate of the event before it, itself
 * included. A device enrolling again at the same gate keeps the name it had there.
 */
export function defaultScannerName(facts: ScannerNameFacts): string {
  if (facts.previous_name !== null) return facts.previous_name;
  const n = facts.enrolled_before + 1;
  return facts.gate_id === null ? `Scanner ${n}` : `${facts.gate_name ?? facts.gate_id}, phone ${n}`;
}

const INVALID_TOKEN_MESSAGE = 'the enrolment token is malformed, expired or already used';

/** Exchanges a single-use enrolment token for an API key scoped to the token's event and gate. */
export async function enroll(deps: EnrollDeps, request: EnrollRequest) {
  assertProtocolVersion(request.protocol_version);
  const token = request.token;
  if (typeof token !== 'string' || !isSecretShaped(ENROLLMENT_TOKEN_PREFIX, token)) {
    throw new IssuerError('INVALID_TOKEN', INVALID_TOKEN_MESSAGE);
  }
  const apiKey = newSecret(API_KEY_PREFIX);
  const name = request.scanner_name?.trim() ?? '';
  const result = await deps.store.scanners.redeemEnrollmentToken(
    hashSecret(token),
    toStored(deps.clock.now()),
    {
      api_key_id: newApiKeyId(),
      key_hash: hashSecret(apiKey),
      scanner_id: request.scanner_id,
      scanner_name: name === '' ? null : name,
      scanner_platform: request.scanner_platform ?? null,
    },
    defaultScannerName,
    request.expected_eid,
  );
  // The store found the token by its hash; comparing once more, against a stand-in when refused,
  // keeps every answer on the same constant-time path whether or not the token exists.
  const matched = matchesHash(token, result.kind === 'enrolled' ? result.token.token_hash : null);
  if (result.kind === 'enrolled' && !matched) throw new Error('the store redeemed a token of another hash');
  if (result.kind === 'refused') {
    if (result.why === 'revoked')
      throw new IssuerError('TOKEN_REVOKED', 'the enrolment token was revoked by the organizer');
    if (result.why === 'other_event') {
      throw new IssuerError('CONFLICT', 'the enrolment token is for another event than expected_eid; it was not used', {
        reason: 'other_event',
      });
    }
    throw new IssuerError('INVALID_TOKEN', INVALID_TOKEN_MESSAGE);
  }
  const scannerName = result.key.scanner_name;
  if (scannerName === null) throw new Error('the store enrolled a scanner without naming it');
  const event = await deps.store.events.getEvent(result.key.eid);
  if (!event) throw new Error(`event ${result.key.eid} of a redeemed token is missing`);
  return {
    api_key: apiKey,
    api_key_id: result.key.api_key_id,
    scanner_name: scannerName,
    scope: {
      eid: event.eid,
      event_name: event.name,
      event_date: toWire(event.event_date),
      gate_id: result.key.gate_id,
      expires_at: toWire(result.key.expires_at),
      allow_search: result.key.allow_search,
    },
    issuer: deps.issuer,
  };
}
