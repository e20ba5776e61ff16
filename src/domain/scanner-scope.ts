import type { ApiKeyRecord } from '../store/store.ts';
import { IssuerError } from './errors.ts';

/**
 * What a scanner's API key may act on, judged in one place: its own event, its own gate (a key
 * enrolled for a gate), its own scanner_id, and finding holders by name only where its enrolment token
 * allowed it. Routes name what they act on (`SCANNER_ROUTE_SCOPES` in http/), and a scan's own event,
 * scanner and gate are judged here for each scan of an upload too.
 */
export interface ScannerScope {
  /** The event acted on. */
  eid?: string;
  /** The event of the ticket asked about (another answer than `eid`'s: the ticket's event is not the path's). */
  ticketEid?: string;
  /** The scanner the request speaks for. */
  scanner_id?: string;
  /** The gate the request names. */
  gate_id?: string;
  /** Finding holders by name. */
  search?: boolean;
}

/** Throws 403 FORBIDDEN when the key may not act on this scope. */
export function checkScannerScope(key: ApiKeyRecord, scope: ScannerScope): void {
  if (scope.eid !== undefined && scope.eid !== key.eid) {
    throw new IssuerError('FORBIDDEN', 'this API key is not valid for this event');
  }
  if (scope.ticketEid !== undefined && scope.ticketEid !== key.eid) {
    throw new IssuerError('FORBIDDEN', 'this API key is not valid for the event of this ticket');
  }
  if (key.gate_id !== null && scope.gate_id !== undefined && scope.gate_id !== key.gate_id) {
    throw new IssuerError('FORBIDDEN', 'this API key is not valid for this gate');
  }
  if (scope.scanner_id !== undefined && scope.scanner_id !== key.scanner_id) {
    throw new IssuerError('FORBIDDEN', 'this API key was enrolled by another scanner');
  }
  if (scope.search === true && !key.allow_search) {
    throw new IssuerError(
      'FORBIDDEN',
      'this API key may not find holders by name: enrol the scanner with a token created with allow_search',
      { reason: 'allow_search' },
    );
  }
}
