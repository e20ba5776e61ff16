import type { CheckInAnswer, RuleRefusal } from '@ticket-issuer/protocol';
import { entriesOf, holderOnDevice, knowledgeFor } from './device-knowledge.ts';
import {
  IssuerHttpError,
  IssuerNetworkError,
  isKeyRejected,
  isRateLimited,
  isRefusal,
  isTransient,
  ScannerError,
} from './errors.ts';
import { checkInBody, isAnnul, type QueuedScan } from './queue.ts';
import {
  answeredEntries,
  answeredNotes,
  contactAfter,
  notesOf,
  refusalReason,
  UNREADABLE,
  type IssuerContact,
  type ScanContext,
  type ScanResult,
  type ScanTicket,
} from './scan-result.ts';
import { refusedLine, settleItem, Tally, type UploadContext } from './sync.ts';
import { STATE_FILES } from './storage/storage.ts';
import { decideOffline, type OfflineVerdict } from './verdict.ts';

function decide(
  ctx: ScanContext,
  token: string,
  scannedAt: Date,
  gate: string | null,
  batch?: ReadonlyMap<string, readonly string[]>,
): Promise<OfflineVerdict> {
  const knowledge = knowledgeFor(ctx, batch);
  const rule = gate === null ? null : (ctx.rules.gates.get(gate) ?? null);
  return decideOffline({ token, eid: ctx.eid, iss: ctx.iss, scannedAt, keys: ctx.keys, knowledge, gate: rule });
}

/** A new queued scan for a readable token. A genuine token of another event is sent without itself. */
export function newScan(token: string, local: OfflineVerdict & { tid: string }, scannedAt: Date, gate: string | null) {
  const scan: QueuedScan = {
    idempotency_key: crypto.randomUUID(),
    tid: local.tid,
    ticket_token: token,
    send_token: local.reason !== 'wrong_event',
    scanned_at: scannedAt.toISOString(),
    gate_id: gate,
    admitted_offline: false,
    turned_away: false,
    verdict: local.verdict,
    reason: local.reason,
    maybe_sent_plain: false,
  };
  return scan;
}

/** The details of an offline verdict: the ticket type signed in the token, and where it was used. */
export function offlineTicket(ctx: ScanContext, scan: QueuedScan, ticketType: string | null): ScanTicket {
  let place: { at: string | null; gate: string | null } = { at: null, gate: null };
  if (scan.reason === 'already_used') {
    const own = ctx.queue
      .itemsOf(scan.tid)
      .find(
        (other): other is QueuedScan =>
          !isAnnul(other) && other.admitted_offline && !ctx.queue.isAnnulled(other.idempotency_key),
      );
    const fed = ctx.knowledge.checkIns?.get(scan.tid);
    if (own) place = { at: own.scanned_at, gate: own.gate_id };
    else if (fed) place = { at: fed.at, gate: fed.gate_id };
  }
  return { holder_name: null, ticket_type: ticketType, checked_in_at: place.at, checked_in_gate: place.gate };
}

/** A verdict decided on the device for a queued scan, saying whether it asked the issuer and whether it had synced. */
export const offlineResult = (
  ctx: Pick<ScanContext, 'synced'>,
  scan: QueuedScan,
  ticket: ScanTicket,
  contact: IssuerContact,
  local: OfflineVerdict,
  entries?: number,
): ScanResult => ({
  verdict: scan.verdict,
  reason: scan.reason,
  tid: scan.tid,
  source: 'offline',
  idempotency_key: scan.idempotency_key,
  issuer_contact: contact,
  ...(ctx.synced ? {} : { synced: false as const }),
  ticket,
  ...notesOf(local),
  ...(entries === undefined ? {} : { entries }),
});

/**
 * Decides tokens on the device alone, in order (a ticket admitted earlier in the batch is
 * `already_used` later in it), and stores them all with one durable write before returning.
 */
export async function scanOffline(ctx: ScanContext, tokens: readonly string[], gate: string | null) {
  // The batch's admissions, stored together at the end: the next scans of the batch count them.
  const admittedNow = new Map<string, string[]>();
  const results: ScanResult[] = [];
  const scans: QueuedScan[] = [];
  for (const token of tokens) {
    const scannedAt = ctx.now();
    const local = await decide(ctx, token, scannedAt, gate, admittedNow);
    if (local.tid === null) {
      results.push(UNREADABLE);
      continue;
    }
    const scan = newScan(token, { ...local, tid: local.tid }, scannedAt, gate);
    scan.before = holderOnDevice(ctx, scan.tid, admittedNow.has(scan.tid));
    scan.admitted_offline = local.verdict === 'admit';
    scan.turned_away = !scan.admitted_offline;
    // The entries the device knew when it decided, and this one when it lets the holder in.
    const entries = entriesOf(ctx, scan.tid, admittedNow.get(scan.tid)).length + (scan.admitted_offline ? 1 : 0);
    if (scan.admitted_offline) admittedNow.set(scan.tid, [...(admittedNow.get(scan.tid) ?? []), scan.scanned_at]);
    scans.push(scan);
    const ticket = offlineTicket(ctx, scan, local.claims?.ticket_type ?? null);
    results.push(offlineResult(ctx, scan, ticket, 'not_asked', local, entries));
  }
  await ctx.queue.record(scans, [...admittedNow.keys()]);
  return results;
}

/**
 * Sends the queued earlier scans and annuls of a ticket first (their order per ticket), each settled
 * as a sync settles it. Null when each got its answer; else the failure (no answer, a 5xx, a 429)
 * that holds this ticket's next scan back. A rejected key (401) throws.
 */
export async function sendEarlierScans(ctx: ScanContext, tid: string): Promise<ScannerError | null> {
  const earlier = ctx.queue.itemsOf(tid);
  if (earlier.length === 0) return null;
  const upload: UploadContext = {
    client: ctx.client,
    queue: ctx.queue,
    storage: ctx.storage,
    checkInUrl: ctx.checkInUrl,
    checkOutUrl: ctx.checkOutUrl,
    who: { eid: ctx.eid, scanner_id: ctx.scannerId },
    policy: { initialBackoffMs: 0, maxAttempts: 1, budgetMs: 0, maxRetryAfterMs: 0, rateLimitBudgetMs: 0 },
    timeoutMs: ctx.onlineTimeoutMs,
  };
  const tally = new Tally(ctx.queue, ctx.storage);
  try {
    for (const item of earlier) await tally.record(item, await settleItem(upload, item));
  } catch (error) {
    if (isTransient(error) || isRateLimited(error)) return error as ScannerError;
    throw error;
  } finally {
    await tally.flush();
  }
  return null;
}

/** Records a refusal for the organizer, then acknowledges the scan. */
export async function refuse(ctx: ScanContext, scan: QueuedScan, error: IssuerHttpError): Promise<void> {
  await ctx.storage.appendLog(STATE_FILES.refused, [refusedLine(scan, error, ctx.now())]);
  await ctx.queue.ack([scan.idempotency_key]);
}

/** The verdict the issuer gave: acknowledged, and remembered as admitted (and its entry) when valid. */
async function answered(ctx: ScanContext, scan: QueuedScan, answer: CheckInAnswer, local: OfflineVerdict) {
  const admit = answer.status === 'valid';
  const ticketType = local.claims?.ticket_type ?? null;
  const entered = admit ? [{ tid: scan.tid, at: scan.scanned_at }] : [];
  await ctx.queue.ack([scan.idempotency_key], admit ? [scan.tid] : [], [], entered, { admits: admit ? [scan] : [] });
  const ticket = answer.ticket;
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
      checked_in_at: answer.status === 'already_used' ? (ticket?.checked_in_at ?? null) : null,
      checked_in_gate: null,
    },
    ...answeredNotes(ticket, local),
    ...answeredEntries(ticket),
  } satisfies ScanResult;
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
