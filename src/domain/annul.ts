import { checkScannerScope } from './scanner-scope.ts';
import { annulOutcome, gateNotes, rulesFor, withinAnnulWindow } from '@ticket-issuer/protocol';
import type { AnnulResult, AnnulTarget } from '../store/annul.ts';
import type { ApiKeyRecord, Store } from '../store/store.ts';
import { MAX_CLOCK_SKEW_MS, MAX_OFFLINE_SCAN_AGE_MS } from './check-in.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import type { EventEntryRules } from './event-settings.ts';
import { normalizeUuid } from './ids.ts';
import { scannerTicket } from './ticket-state.ts';
import { parseUtcInstant, toStored } from './time.ts';

/** The body of `POST /api/v1/tickets/check-in/annul`. */
export interface AnnulRequest {
  eid: string;
  scanner_id: string;
  idempotency_key: string;
  annulled_at: string;
}

export interface AnnulDeps {
  store: Store;
  clock: Clock;
  /** ANNUL_WINDOW_S. */
  windowSeconds: number;
  rules: (eid: string) => Promise<EventEntryRules>;
}

const REFUSALS = {
  not_an_entry: 'this scan was not an entry that counts, so there is nothing to annul',
  window_passed: 'this entry was scanned too long ago to be annulled by its scanner',
  not_latest: 'the ticket moved since this entry (an exit, or a later entry), so it can no longer be annulled',
} as const;

/**
 * A scanner undoes its own entry: the entry it recorded under `idempotency_key`, within the window of
 * its scan time, while it is the ticket's latest move (the shared rule, `annulOutcome`). The same
 * annul again answers the same way.
 */
export async function annulByScanner(deps: AnnulDeps, key: ApiKeyRecord, request: AnnulRequest) {
  checkScannerScope(key, { eid: request.eid, scanner_id: request.scanner_id });
  const idempotencyKey = normalizeUuid(request.idempotency_key);
  if (idempotencyKey === null) {
    throw invalidRequest('idempotency_key must be a UUID', [{ field: 'idempotency_key', problem: 'must be a UUID' }]);
  }
  const now = deps.clock.now();
  const annulledAt = annulTime(request.annulled_at, now);
  const target: AnnulTarget = { scanner_id: key.scanner_id, idempotency_key: idempotencyKey };
  return answer(deps, request.eid, target, annulledAt, now, deps.windowSeconds);
}

/** An organizer annuls the entry of a line of the scan log, at any time after it (no window). */
export async function annulByOrganizer(deps: AnnulDeps, eid: string, scanId: number) {
  const now = deps.clock.now();
  return answer(deps, eid, { scan_id: scanId }, toStored(now), now, null);
}

async function answer(
  deps: AnnulDeps,
  eid: string,
  target: AnnulTarget,
  annulledAt: string,
  now: Date,
  windowSeconds: number | null,
) {
  const result: AnnulResult = await deps.store.checkIns.annulEntry(
    { eid, target, annulled_at: annulledAt, received_at: toStored(now) },
    (seen) =>
      annulOutcome({
        isEntry: seen.isEntry,
        latest: seen.latest,
        withinWindow: windowSeconds === null || withinAnnulWindow(seen.scanned_at, annulledAt, windowSeconds),
      }),
  );
  if (result.kind === 'not_found') {
    throw new IssuerError(
      'NOT_FOUND',
      'scan_id' in target
        ? 'no scan of this event has this scan_id'
        : 'this scanner recorded no scan under this idempotency key',
    );
  }
  if (result.kind === 'refused') {
    throw new IssuerError('CONFLICT', REFUSALS[result.reason], { reason: result.reason });
  }
  const { ticket, entries } = result;
  const rules = await deps.rules(ticket.eid);
  const notes = gateNotes(rulesFor(rules.types, ticket.ticket_type), ticket);
  return {
    status: 'annulled' as const,
    ticket: { ...scannerTicket(ticket), entries: entries.length, ...notes },
  };
}

/** `annulled_at` as stored: ISO 8601 UTC, bounded like `scanned_at` (48 hours back, 5 minutes ahead). */
function annulTime(text: string, now: Date): string {
  const at = parseUtcInstant(text);
  const field = (problem: string) => invalidRequest(`annulled_at ${problem}`, [{ field: 'annulled_at', problem }]);
  if (at === null) throw field('must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z');
  const age = now.getTime() - at.getTime();
  if (age > MAX_OFFLINE_SCAN_AGE_MS) throw field('is more than 48 hours in the past');
  if (-age > MAX_CLOCK_SKEW_MS) throw field('is more than 5 minutes in the future');
  return toStored(at);
}
