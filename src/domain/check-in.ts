import type { ApiKeyRecord, CheckInAttempt, CheckInResult, StoredAnswer, Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { unauthorizedKey } from './credentials.ts';
import { IssuerError } from './errors.ts';
import { normalizeUuid } from './ids.ts';
import type { TicketSigner } from './signing.ts';
import { checkScanWindow, checkScope, parseScanTime, resolveIdempotencyKey } from './scan-request.ts';
import { checkSignature, readToken, SignatureCheckNeeded, signatureProblem } from './ticket-token.ts';
import { decide, type EntryState, withoutTypes } from './decide.ts';
import { keepTurnedAway, withMissedAutoExit } from './decide-offline.ts';
import { decideExit } from './decide-exit.ts';
import type { EventEntryRules } from './event-settings.ts';
import { parseUtcInstant, toStored } from './time.ts';

export { MAX_CLOCK_SKEW_MS, MAX_OFFLINE_SCAN_AGE_MS } from './scan-request.ts';

export interface CheckInRequest {
  tid: string;
  eid: string;
  scanned_at: string;
  scanner_id: string;
  gate_id?: string;
  idempotency_key?: string;
  ticket_token?: string;
  signature_valid?: boolean;
  /** The scanner already let the holder in on its own offline verdict. */
  admitted_offline?: boolean;
  /** Gate staff chose the ticket from a search by the holder's name (no ticket token). */
  manual?: boolean;
}

export interface CheckInDeps {
  store: Store;
  clock: Clock;
  signer: TicketSigner;
  issuer: string;
  /** The event's entry rules (absent: the spec's rules alone, no re-entry). */
  rules?: (eid: string) => Promise<EventEntryRules>;
  /** Told when a refused attempt could not be written to the scan log. */
  onLogFailure?: (error: unknown) => void;
  /** The scans come from an upload of a scanner's queue (`CheckInAttempt.queued`). */
  queued?: boolean;
}

/**
 * Checks a ticket in for an authenticated scanner. Every attempt ends up in the event's scan log:
 * the store logs what it decides, and an attempt refused on the way (scope, time, key, token
 * version) is logged here as `refused` with the reason, so that the organizer's audit is complete.
 */
export function checkIn(
  deps: CheckInDeps,
  key: ApiKeyRecord,
  request: CheckInRequest,
  headerKey: string | undefined,
): Promise<{ answer: StoredAnswer; replay: boolean }> {
  return recordScan(deps, key, request, headerKey, 'in');
}

/** An entry or an exit, and the scan-log line of a refused one. */
async function recordScan(
  deps: CheckInDeps,
  key: ApiKeyRecord,
  request: CheckInRequest,
  headerKey: string | undefined,
  direction: 'in' | 'out',
): Promise<{ answer: StoredAnswer; replay: boolean }> {
  const now = deps.clock.now();
  try {
    return await attemptCheckIn(deps, key, request, headerKey, now, direction);
  } catch (error) {
    // An idempotency conflict is logged by the store; a key refused in the transaction, like one refused
    // at authentication, is not the scanner's attempt at all.
    if (error instanceof IssuerError && error.code !== 'IDEMPOTENCY_CONFLICT' && error.code !== 'UNAUTHORIZED') {
      // The scanner is owed the refusal, not a 500: a scan log that cannot be written is the issuer's problem.
      await deps.store.checkIns
        .logRefusedAttempt(refusedAttempt(key, request, headerKey, now), `${error.code}: ${error.message}`)
        .catch((logError: unknown) => deps.onLogFailure?.(logError));
    }
    throw error;
  }
}

/** A value as sent, safe to keep: printable, at most 64 characters. */
/**
 * An exit scan (`POST /api/v1/tickets/check-out`): the check-in's body, authentication, idempotency
 * (the same key space: one key on an entry and an exit is a conflict) and scan log; the decision is
 * `decideExit`'s.
 */
export function checkOut(
  deps: CheckInDeps,
  key: ApiKeyRecord,
  request: CheckInRequest,
  headerKey: string | undefined,
): Promise<{ answer: StoredAnswer; replay: boolean }> {
  return recordScan(deps, key, request, headerKey, 'out');
}

const asSent = (value: string): string => value.replace(/\p{Cc}/gu, '?').slice(0, 64);

/** What is known of a refused attempt, as the scan log keeps it (raw values, cut to size, where unparsed). */
function refusedAttempt(
  key: ApiKeyRecord,
  request: CheckInRequest,
  headerKey: string | undefined,
  now: Date,
): CheckInAttempt {
  const scannedAt = parseUtcInstant(request.scanned_at);
  return {
    eid: key.eid,
    tid: request.tid,
    idempotency_key: asSent(
      normalizeUuid(request.idempotency_key ?? headerKey ?? '') ?? request.idempotency_key ?? headerKey ?? '',
    ),
    fingerprint: '',
    api_key_id: key.api_key_id,
    scanner_id: request.scanner_id,
    gate_id: request.gate_id ?? key.gate_id,
    scanned_at: scannedAt ? toStored(scannedAt) : asSent(request.scanned_at),
    received_at: toStored(now),
    admitted_offline: request.admitted_offline ?? null,
    manual: request.manual === true,
  };
}

/**
 * Key, scope and signature first, then one atomic store step. The 48-hour window is judged inside
 * that step and only for a new attempt, so a retry of an answered scan gets its first answer however
 * late it comes.
 */
async function attemptCheckIn(
  deps: CheckInDeps,
  key: ApiKeyRecord,
  request: CheckInRequest,
  headerKey: string | undefined,
  now: Date,
  direction: 'in' | 'out',
): Promise<{ answer: StoredAnswer; replay: boolean }> {
  const idempotencyKey = resolveIdempotencyKey(request.idempotency_key, headerKey);
  const scannedAtDate = parseScanTime(request.scanned_at);
  const scannedAt = toStored(scannedAtDate);
  checkScope(key, request);
  let token = await readToken(deps, request);
  const gateId = request.gate_id ?? null;
  const attempt = {
    eid: request.eid,
    tid: request.tid,
    idempotency_key: idempotencyKey,
    fingerprint: JSON.stringify([
      request.tid,
      request.eid,
      scannedAt,
      request.scanner_id,
      gateId,
      request.ticket_token ?? null,
      request.signature_valid ?? null,
      // Only when sent, so that answers stored before the field existed still match their retries.
      ...(request.admitted_offline === undefined ? [] : [request.admitted_offline]),
      ...(request.manual === undefined ? [] : [{ manual: request.manual }]),
      // An exit is another body than an entry with the same fields: one key on both is a conflict.
      ...(direction === 'out' ? ['check-out'] : []),
    ]),
    api_key_id: key.api_key_id,
    scanner_id: request.scanner_id,
    // A gate-scoped key that names no gate scans at its own gate: the scan log says which.
    gate_id: gateId ?? key.gate_id,
    scanned_at: scannedAt,
    received_at: toStored(now),
    admitted_offline: request.admitted_offline ?? null,
    manual: request.manual === true,
    ...(deps.queued === true ? { queued: true } : {}),
  };
  const presented = request.ticket_token ?? null;
  const entry = async () => {
    const rules = (await deps.rules?.(request.eid)) ?? { ...withoutTypes(false), reentry: false };
    // A declared gate's rules, the holder's presence (where some holder may come in again) and the
    // ticket's entries, as the store reads them in the attempt's transaction; an undeclared gate_id
    // is for audit only (the spec's meaning).
    const judge = (ticket: TicketRecord | null, state: EntryState) => {
      checkScanWindow(scannedAtDate, now);
      const problem = signatureProblem(token, ticket, deps, request);
      const verdict = decide(
        ticket,
        request.eid,
        scannedAt,
        problem,
        presented,
        state,
        rules,
        request.admitted_offline,
      );
      if (request.admitted_offline === false) return keepTurnedAway(verdict);
      return withMissedAutoExit(verdict, state.entries, scannedAt, attempt.received_at, rules.event);
    };
    // With re-entry, an entry depends on whether the holder is out: decided on their presence.
    if (rules.reentry) {
      return deps.store.checkIns.checkInWithPresence(attempt, (ticket, presence, gate, entries) =>
        judge(ticket, { gate, presence, entries }),
      );
    }
    return deps.store.checkIns.checkIn(attempt, (ticket, gate, entries) => judge(ticket, { gate, entries }));
  };
  // Exits are never refused for the gate: the holder is leaving.
  const exit = async () => {
    const rules = (await deps.rules?.(request.eid)) ?? withoutTypes(false);
    return deps.store.checkIns.checkOut(attempt, (ticket, presence) => {
      checkScanWindow(scannedAtDate, now);
      const problem = signatureProblem(token, ticket, deps, request);
      return decideExit(ticket, request.eid, scannedAt, problem, presented, presence, rules.event);
    });
  };
  const step = direction === 'in' ? entry : exit;
  let result: CheckInResult;
  try {
    result = await step();
  } catch (error) {
    if (!(error instanceof SignatureCheckNeeded) || token.kind !== 'signature_pending') throw error;
    // Nothing of the first step was stored; the second decides with the signature known.
    token = await checkSignature(deps, request, token);
    result = await step();
  }
  if (result.kind === 'key_refused') throw unauthorizedKey(result.why);
  if (result.kind === 'conflict') {
    throw new IssuerError(
      'IDEMPOTENCY_CONFLICT',
      'this idempotency key was already used with a different request body',
      {
        idempotency_key: idempotencyKey,
      },
    );
  }
  return result;
}
