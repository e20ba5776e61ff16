/** Enrolling this phone: only with its own issuer, as the scanner package enrols any device. */
import { enroll, parseSetupUri, ScannerError, type EnrollResult, type Transport } from '@ticket-issuer/scanner';
import type { IndexedDbStorage } from '@ticket-issuer/scanner/indexeddb';
import { SYNC_POLICY } from './connection.ts';

/** Refuses a setup URI whose issuer is not this page's own origin: the page talks to nobody else. */
export function ownIssuerOnly(setupUri: string): void {
  const setup = parseSetupUri(setupUri);
  if (new URL(setup.iss).origin !== location.origin) {
    throw new ScannerError(
      'INVALID_SETUP_URI',
      `this setup code is for the issuer at ${setup.iss}: open the scanner from ${setup.iss}/scan/`,
    );
  }
}

/**
 * Enrols with a setup URI (see `ownIssuerOnly`), keeping the scanner id, name (unless `name` is
 * given) and queue as the scanner package does on re-enrolment.
 */
export function enrolHere(
  storage: IndexedDbStorage,
  transport: Transport,
  setupUri: string,
  name?: string,
): Promise<EnrollResult> {
  return enroll(storage, setupUri, {
    transport,
    // A name typed at enrolment; none on a first enrolment (empty), and the issuer names the scanner.
    ...(name ? { name } : {}),
    defaultName: '',
    platform: `web-scanner/0.1 (${navigator.userAgent.slice(0, 80)})`,
    retryPolicy: SYNC_POLICY,
    requestTimeoutMs: 5000,
  });
}
