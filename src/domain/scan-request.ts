/** What a scan's request must be before the store is asked: its idempotency key, its time, its scope. */
import type { ApiKeyRecord } from '../store/store.ts';
import type { CheckInRequest } from './check-in.ts';
import { invalidRequest } from './errors.ts';
import { normalizeUuid } from './ids.ts';
import { checkScannerScope } from './scanner-scope.ts';
import { HOUR_MS, parseUtcInstant } from './time.ts';

/** How old a queued offline scan may be and still be accepted (the spec's 48 hours). */
export const MAX_OFFLINE_SCAN_AGE_MS = 48 * HOUR_MS;
/** How far ahead of the issuer's clock a scanner's clock may run. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** The key from the body or the `Idempotency-Key` header; both must agree when both are sent. */
export function resolveIdempotencyKey(bodyKey: string | undefined, headerKey: string | undefined): string {
  const fromBody = bodyKey === undefined ? undefined : normalizeUuid(bodyKey);
  const fromHeader = headerKey === undefined ? undefined : normalizeUuid(headerKey);
  if (fromBody === null)
    throw invalidRequest('idempotency_key must be a UUID', [{ field: 'idempotency_key', problem: 'must be a UUID' }]);
  if (fromHeader === null)
    throw invalidRequest('the Idempotency-Key header must be a UUID', [
      { field: 'Idempotency-Key', problem: 'must be a UUID' },
    ]);
  if (fromBody && fromHeader && fromBody !== fromHeader) {
    throw invalidRequest('the Idempotency-Key header and the body field idempotency_key differ', [
      { field: 'idempotency_key', problem: 'differs from the Idempotency-Key header' },
    ]);
  }
  const key = fromBody ?? fromHeader;
  if (!key) {
    throw invalidRequest('an idempotency key is required, in the body or the Idempotency-Key header', [
      { field: 'idempotency_key', problem: 'required (or send the Idempotency-Key header)' },
    ]);
  }
  return key;
}

/** `scanned_at` as an instant; it must be ISO 8601 UTC. */
export function parseScanTime(text: string): Date {
  const scannedAt = parseUtcInstant(text);
  if (!scannedAt) {
    throw invalidRequest('scanned_at must be an ISO 8601 UTC timestamp', [
      { field: 'scanned_at', problem: 'must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z' },
    ]);
  }
  return scannedAt;
}

/** Accepts scans up to 48 hours old and at most 5 minutes ahead of the issuer's clock; throws otherwise. */
export function checkScanWindow(scannedAt: Date, now: Date): void {
  const age = now.getTime() - scannedAt.getTime();
  if (age > MAX_OFFLINE_SCAN_AGE_MS) {
    throw invalidRequest('scanned_at is more than 48 hours in the past', [
      { field: 'scanned_at', problem: 'more than 48 hours in the past' },
    ]);
  }
  if (-age > MAX_CLOCK_SKEW_MS) {
    throw invalidRequest('scanned_at is more than 5 minutes in the future', [
      { field: 'scanned_at', problem: 'more than 5 minutes in the future' },
    ]);
  }
}

/** The key's event, gate and scanner must match the request (see scanner-scope.ts). */
export function checkScope(key: ApiKeyRecord, request: CheckInRequest): void {
  checkScannerScope(key, {
    eid: request.eid,
    scanner_id: request.scanner_id,
    ...(request.gate_id === undefined ? {} : { gate_id: request.gate_id }),
  });
}
