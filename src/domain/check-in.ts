import type { ApiKeyRecord, CheckInAttempt, CheckInResult, StoredAnswer, Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { unauthorizedKey } from './credentials.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { checkScannerScope } from './scanner-scope.ts';
import { normalizeUuid } from './ids.ts';
import type { TicketClaims, TicketSigner } from './signing.ts';
import { decide, decideExit, type EntryState, keepTurnedAway, withMissedAutoExit, withoutTypes } from './decide.ts';
import type { EventEntryRules } from './event-settings.ts';
import { HOUR_MS, parseUtcInstant, toStored } from './time.ts';

/** How old a queued offline scan may be and still be accepted (the spec's 48 hours). */
export const MAX_OFFLINE_SCAN_AGE_MS = 48 * HOUR_MS;
/** How far ahead of the issuer's clock a scanner's clock may run. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

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
      await deps.store
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
      return deps.store.checkInWithPresence(attempt, (ticket, presence, gate, entries) =>
        judge(ticket, { gate, presence, entries }),
      );
    }
    return deps.store.checkIn(attempt, (ticket, gate, entries) => judge(ticket, { gate, entries }));
  };
  // Exits are never refused for the gate: the holder is leaving.
  const exit = async () => {
    const rules = (await deps.rules?.(request.eid)) ?? withoutTypes(false);
    return deps.store.checkOut(attempt, (ticket, presence) => {
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

/** The key from the body or the `Idempotency-Key` header; both must agree when both are sent. */
function resolveIdempotencyKey(bodyKey: string | undefined, headerKey: string | undefined): string {
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
function parseScanTime(text: string): Date {
  const scannedAt = parseUtcInstant(text);
  if (!scannedAt) {
    throw invalidRequest('scanned_at must be an ISO 8601 UTC timestamp', [
      { field: 'scanned_at', problem: 'must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z' },
    ]);
  }
  return scannedAt;
}

/** Accepts scans up to 48 hours old and at most 5 minutes ahead of the issuer's clock; throws otherwise. */
function checkScanWindow(scannedAt: Date, now: Date): void {
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
function checkScope(key: ApiKeyRecord, request: CheckInRequest): void {
  checkScannerScope(key, {
    eid: request.eid,
    scanner_id: request.scanner_id,
    ...(request.gate_id === undefined ? {} : { gate_id: request.gate_id }),
  });
}

/**
 * What the issuer makes of the presented token before the store step: why it is not acceptable
 * (`settled`, null when it is, or when there is no token), or a token that passed every check but its
 * signature (`signature_pending`). The issuer's own verification outranks the scanner's verdict.
 */
type TokenVerdict =
  | { kind: 'settled'; problem: string | null }
  | { kind: 'signature_pending'; claims: TicketClaims; signatureValid: () => Promise<boolean> };

async function readToken(deps: CheckInDeps, request: CheckInRequest): Promise<TokenVerdict> {
  // A scanner that could not verify the signature turned the holder away: its report stands, token or
  // not, so that a key it did not know yet never turns a rejection into a check-in.
  if (request.signature_valid === false) return { kind: 'settled', problem: 'scanner reported an invalid signature' };
  if (request.ticket_token === undefined) return { kind: 'settled', problem: null };
  const read = await deps.signer.read(request.ticket_token);
  if (!read.ok) {
    if ('version' in read) {
      throw new IssuerError('PROTOCOL_VERSION_UNSUPPORTED', 'the ticket token uses an unsupported protocol version', {
        supported: ['1'],
      });
    }
    return { kind: 'settled', problem: read.reason };
  }
  return { kind: 'signature_pending', claims: read.claims, signatureValid: read.signatureValid };
}

/** Why a token whose signature is genuine is still not acceptable for this request, or null. */
function claimsProblem(claims: TicketClaims, deps: CheckInDeps, request: CheckInRequest): string | null {
  if (claims.v !== 1) return 'missing v';
  if (claims.iss !== deps.issuer) return 'token issued by another issuer';
  if (claims.tid !== request.tid) return 'token tid differs from the request';
  if (claims.eid !== request.eid) return 'token eid differs from the request';
  return null;
}

/** Checks a pending signature: the verdict on a token that is not the ticket's stored one. */
async function checkSignature(
  deps: CheckInDeps,
  request: CheckInRequest,
  pending: Extract<TokenVerdict, { kind: 'signature_pending' }>,
): Promise<TokenVerdict> {
  const problem = (await pending.signatureValid()) ? claimsProblem(pending.claims, deps, request) : 'bad signature';
  return { kind: 'settled', problem };
}

/** Thrown from inside the store step: this token's signature must be checked before it is decided. */
class SignatureCheckNeeded extends Error {}

/**
 * The signature verdict inside the store step, on the ticket as stored. The token the issuer stored
 * for the ticket, character for character, carries the issuer's own signature (only the issuer
 * writes it, right after signing it), so its check is skipped; any other token (superseded, forged,
 * of an unknown tid) sends the attempt back to have its signature checked first.
 */
function signatureProblem(
  verdict: TokenVerdict,
  ticket: TicketRecord | null,
  deps: CheckInDeps,
  request: CheckInRequest,
): string | null {
  if (verdict.kind === 'settled') return verdict.problem;
  if (ticket === null || request.ticket_token !== ticket.ticket_token) throw new SignatureCheckNeeded();
  return claimsProblem(verdict.claims, deps, request);
}
