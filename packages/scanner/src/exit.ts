/** Exit scans: the device lets a holder out, online through the check-out endpoint or offline. */
import type { CheckOutAnswer } from '@ticket-issuer/protocol';
import { isKeyRejected, isRefusal, ScannerError } from './errors.ts';
import { checkInBody, type QueuedScan } from './queue.ts';
import { knowledgeFor } from './device-knowledge.ts';
import { newScan, offlineResult, offlineTicket, refuse, sendEarlierScans } from './scan.ts';
import {
  answeredNotes,
  contactAfter,
  type IssuerContact,
  type ScanContext,
  type ScanResult,
  UNREADABLE,
} from './scan-result.ts';
import { checkOutUrl } from './sync.ts';
import { decideExitOffline, type OfflineVerdict } from './verdict.ts';

/**
 * Exit scans decided on the device alone, in order, stored with one durable write. `exit` lets the
 * holder out; `reject` with `not_inside` when the device knows they are not in.
 */
export async function exitOffline(ctx: ScanContext, tokens: readonly string[], gate: string | null) {
  const results: ScanResult[] = [];
  const scans: QueuedScan[] = [];
  for (const token of tokens) {
    const scannedAt = ctx.now();
    const local = await decideExit(ctx, token, scannedAt);
    if (local.tid === null) {
      results.push(UNREADABLE);
      continue;
    }
    const scan = exitScan(token, { ...local, tid: local.tid }, scannedAt, gate);
    scans.push(scan);
    // Recorded one by one: the next exit of the same ticket knows this one.
    await ctx.queue.record([scan]);
    const ticket = offlineTicket(ctx, scan, local.claims?.ticket_type ?? null);
    results.push(offlineResult(ctx, scan, ticket, 'not_asked', local));
  }
  return results;
}

/**
 * An exit scan online: stored first, then sent to the check-out endpoint (3 s); without an answer
 * the device's own verdict stands and the scan stays queued. A rejected key (401) throws. Input that
 * is not a ticket token is `not valid` and asks nothing (as at the entry).
 */
export async function exitOnline(ctx: ScanContext, token: string, gate: string | null): Promise<ScanResult> {
  const scannedAt = ctx.now();
  const local = await decideExit(ctx, token, scannedAt);
  if (local.tid === null) return UNREADABLE;
  const scan = exitScan(token, { ...local, tid: local.tid }, scannedAt, gate);
  return sendExit(ctx, scan, local, local.claims?.ticket_type ?? null);
}

/**
 * Sends an exit scan the device has judged (`local`): stored first, after the ticket's earlier queued
 * scans; without an answer the device's verdict stands and the scan stays queued.
 */
export async function sendExit(
  ctx: ScanContext,
  scan: QueuedScan,
  local: OfflineVerdict,
  ticketType: string | null,
): Promise<ScanResult> {
  // The ticket's earlier queued scans go first: an exit must not overtake the entry before it.
  const earlierFailure = await sendEarlierScans(ctx, scan.tid);
  await ctx.queue.record([scan]);
  const offline = (contact: IssuerContact) =>
    offlineResult(ctx, scan, offlineTicket(ctx, scan, ticketType), contact, local);
  if (earlierFailure !== null) return offline(contactAfter(earlierFailure));
  let answer: CheckOutAnswer;
  try {
    const url = checkOutUrl(ctx);
    answer = await ctx.client.checkOut(
      url,
      checkInBody(scan, { eid: ctx.eid, scanner_id: ctx.scannerId }, false),
      ctx.onlineTimeoutMs,
    );
  } catch (error) {
    if (!(error instanceof ScannerError)) throw error;
    if (isKeyRejected(error)) throw error;
    if (isRefusal(error)) {
      await refuse(ctx, scan, error);
      return {
        verdict: 'reject',
        reason: error.issuerCode,
        tid: scan.tid,
        source: 'issuer',
        idempotency_key: scan.idempotency_key,
        issuer_contact: 'answered',
        ...answeredNotes(error.details, local),
      };
    }
    return offline(contactAfter(error));
  }
  const out = answer.status === 'checked_out' || answer.status === 'revoked';
  // Remembered: the next scan of this ticket on this device knows the holder went out.
  await ctx.queue.ack([scan.idempotency_key], [], out ? [scan.tid] : []);
  return {
    verdict: out ? 'exit' : 'reject',
    reason: answer.status,
    tid: scan.tid,
    source: 'issuer',
    idempotency_key: scan.idempotency_key,
    issuer_contact: 'answered',
    ticket: {
      holder_name: answer.ticket?.holder_name ?? null,
      ticket_type: answer.ticket?.ticket_type ?? ticketType,
      checked_in_at: null,
      checked_in_gate: null,
    },
    ...answeredNotes(answer.ticket, local),
  };
}

function decideExit(ctx: ScanContext, token: string, scannedAt: Date): Promise<OfflineVerdict> {
  const knowledge = knowledgeFor(ctx);
  return decideExitOffline({ token, eid: ctx.eid, iss: ctx.iss, scannedAt, keys: ctx.keys, knowledge });
}

/** A queued exit scan: sent to the check-out endpoint, with no report of the device's. */
export function exitScan(token: string, local: OfflineVerdict & { tid: string }, scannedAt: Date, gate: string | null) {
  return { ...newScan(token, local, scannedAt, gate), direction: 'out' as const };
}
