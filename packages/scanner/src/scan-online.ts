/** Scanning online: the issuer's answer is the verdict, and without one the device's own stands. */
import type { CheckInAnswer, RuleRefusal } from '@ticket-issuer/protocol';
import { entriesOf, holderOnDevice } from './device-knowledge.ts';
import { IssuerHttpError, IssuerNetworkError, isKeyRejected, isRefusal, ScannerError } from './errors.ts';
import { checkInBody, type QueuedScan } from './queue.ts';
import { decide, newScan, offlineResult, offlineTicket, refuse, sendEarlierScans } from './scan.ts';
import {
  answeredEntries,
  answeredNotes,
  contactAfter,
  refusalReason,
  UNREADABLE,
  type IssuerContact,
  type ScanContext,
  type ScanResult,
  type ScanTicket,
} from './scan-result.ts';
import type { OfflineVerdict } from './verdict.ts';

/** The verdict the issuer gave: acknowledged, and remembered as admitted (and its entry) when valid. */
async function answered(ctx: ScanContext, scan: QueuedScan, answer: CheckInAnswer, local: OfflineVerdict) {
  const admit = answer.status === 'valid';
  const ticketType = local.claims?.ticket_type ?? null;
  const entered = admit ? [{ tid: scan.tid, at: scan.scanned_at }] : [];
  await ctx.queue.ack([scan.idempotency_key], admit ? [scan.tid] : [], [], entered, { admits: admit ? [scan] : [] });
  const ticket = answer.ticket;
  const usedAt = answer.status === 'already_used' ? (ticket?.checked_in_at ?? null) : null;
  return {
    verdict: admit ? 'admit' : 'reject',
    reason: answer.status,
    tid: scan.tid,
    source: 'issuer',
    idempotency_key: scan.idempotency_key,
    issuer_contact: 'answered',
    ticket: {
      holder_name: ticket?.holder_name ?? null,
      ticket_type: ticket?.ticket_type ?? ticketType,
      checked_in_at: usedAt,
      checked_in_gate: usedAt === null ? null : feedGate(ctx, scan.tid, usedAt),
    },
    ...answeredNotes(ticket, local),
    ...answeredEntries(ticket),
  } satisfies ScanResult;
}

/** The gate of the feed's entry of a ticket at `at` (the issuer's answer names none), if the feed has it. */
function feedGate(ctx: ScanContext, tid: string, at: string): string | null {
  const place = ctx.knowledge.checkIns?.get(tid);
  return place && Date.parse(place.at) === Date.parse(at) ? place.gate_id : null;
}

/** The holder and type a gate's refusal names (the issuer's details), for the verdict screen. */
function refusedTicket(details: Record<string, unknown>, ticketType: string | null): ScanTicket {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    holder_name: text(details.holder_name),
    ticket_type: text(details.ticket_type) ?? ticketType,
    checked_in_at: null,
    checked_in_gate: null,
  };
}

/**
 * No usable answer: a refusal for good is final; otherwise the offline verdict stands and the scan
 * stays queued. `contact` is what the request said of the issuer (by default, what `failure` says).
 */
async function unanswered(
  ctx: ScanContext,
  scan: QueuedScan,
  failure: ScannerError,
  local: OfflineVerdict,
  contact: IssuerContact = contactAfter(failure),
): Promise<ScanResult> {
  const ticketType = local.claims?.ticket_type ?? null;
  if (isRefusal(failure)) {
    await refuse(ctx, scan, failure);
    const { tid, idempotency_key } = scan;
    // A refusal by a gate or by the entry rules says which: the same reason as the device's own verdict.
    const ruled = refusalReason(failure.details);
    const result: ScanResult = {
      verdict: 'reject',
      reason: ruled ?? failure.issuerCode,
      tid,
      source: 'issuer',
      idempotency_key,
      issuer_contact: 'answered',
      ...answeredNotes(failure.details, local),
      ...answeredEntries(failure.details),
    };
    if (ruled !== null) result.ticket = refusedTicket(failure.details, ticketType);
    if (ruled !== null && ruled !== 'ticket_type_not_admitted')
      result.refusal = failure.details as unknown as RuleRefusal;
    return result;
  }
  // The entries the device knows before this scan is marked (it counts once marked admitted).
  const entries = entriesOf(ctx, scan.tid).length + (scan.verdict === 'admit' ? 1 : 0);
  const mayHaveArrived =
    (failure instanceof IssuerNetworkError && failure.delivery === 'maybe') ||
    (failure instanceof IssuerHttpError && failure.status >= 500);
  await ctx.queue.markOffline(scan.idempotency_key, {
    admitted_offline: scan.verdict === 'admit',
    maybe_sent_plain: mayHaveArrived,
    turned_away: scan.verdict === 'reject',
  });
  return offlineResult(ctx, scan, offlineTicket(ctx, scan, ticketType), contact, local, entries);
}

/**
 * The issuer rejected the key (401): no verdict is shown, so the holder is not let in on this scan.
 * It stays queued as turned away (it never becomes a check-in) and the error goes up to the caller.
 */
async function keyRejected(ctx: ScanContext, scan: QueuedScan, error: IssuerHttpError): Promise<never> {
  await ctx.queue.markOffline(scan.idempotency_key, {
    admitted_offline: false,
    maybe_sent_plain: false,
    turned_away: true,
  });
  throw error;
}

/**
 * Scans one token online: stores the scan durably first, then asks the issuer (3 s). Its answer is
 * the verdict; without one (timeout, network, 5xx, 429) the offline verdict stands and the scan
 * stays queued, marked admitted when it was, and marked when the request may have arrived. A
 * rejected key (401) throws, whether on this scan or on a queued earlier one, and shows no verdict.
 */
export async function scanOnline(ctx: ScanContext, token: string, gate: string | null): Promise<ScanResult> {
  const scannedAt = ctx.now();
  const local = await decide(ctx, token, scannedAt, gate);
  if (local.tid === null) return UNREADABLE;
  const scan = newScan(token, { ...local, tid: local.tid }, scannedAt, gate);
  scan.before = holderOnDevice(ctx, scan.tid);
  return askIssuer(ctx, scan, local);
}

/**
 * Sends a new entry scan (a scanned token, or a manual check-in chosen from a search) after the
 * ticket's queued earlier scans, storing it durably first: the issuer's answer is the verdict, and
 * without one `local`, the device's own verdict, stands (see `scanOnline`).
 */
export async function askIssuer(ctx: ScanContext, scan: QueuedScan, local: OfflineVerdict): Promise<ScanResult> {
  let earlierFailure: ScannerError | null;
  try {
    earlierFailure = await sendEarlierScans(ctx, scan.tid);
  } catch (error) {
    if (!(error instanceof ScannerError) || !isKeyRejected(error)) throw error;
    // This scan happened too: it is kept (turned away, no verdict shown) like the queue before it.
    await ctx.queue.record([scan]);
    return keyRejected(ctx, scan, error);
  }
  await ctx.queue.record([scan]);
  if (earlierFailure !== null) {
    // This scan itself was never sent; what the issuer is comes from the earlier scan's request.
    const notSent = new IssuerNetworkError('ISSUER_UNREACHABLE', 'earlier scans not sent', 'not_sent');
    return unanswered(ctx, scan, notSent, local, contactAfter(earlierFailure));
  }
  let answer: CheckInAnswer;
  try {
    const body = checkInBody(scan, { eid: ctx.eid, scanner_id: ctx.scannerId }, false);
    answer = await ctx.client.checkIn(ctx.checkInUrl, body, ctx.onlineTimeoutMs);
  } catch (error) {
    if (!(error instanceof ScannerError)) throw error;
    if (isKeyRejected(error)) return keyRejected(ctx, scan, error);
    return unanswered(ctx, scan, error, local);
  }
  return answered(ctx, scan, answer, local);
}
