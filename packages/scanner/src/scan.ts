/** Scanning on the device: its own verdict, the queued scan it makes, and a ticket's earlier scans sent first. */
import { entriesOf, holderOnDevice, knowledgeFor } from './device-knowledge.ts';
import { IssuerHttpError, isRateLimited, isTransient, ScannerError } from './errors.ts';
import { isAnnul, type QueuedScan } from './queue.ts';
import {
  notesOf,
  UNREADABLE,
  type IssuerContact,
  type ScanContext,
  type ScanResult,
  type ScanTicket,
} from './scan-result.ts';
import { refusedLine, settleItem, Tally, type UploadContext } from './sync.ts';
import { STATE_FILES } from './storage/storage.ts';
import { decideOffline, type OfflineVerdict } from './verdict.ts';

/** The device's own verdict on a token, with what it knows (and the batch's admissions so far). */
export function decide(
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
