/**
 * Check-ins without a scanned token: the members of a group chosen at the gate, and a ticket whose
 * short code was typed. The device judges each holder by the shared entry rules on what it knows
 * (see holder-judgement.ts), and the scan goes through the queue like any other: a group's members
 * are stored with one write and uploaded by the next sync; a typed code is asked of the issuer first
 * when online, with the device's verdict standing when it does not answer.
 */
import { entriesOf, holderOnDevice } from './device-knowledge.ts';
import { judgeHolder, type NamedHolder } from './holder-judgement.ts';
import type { ChosenHolder } from './manual.ts';
import type { QueuedScan } from './queue.ts';
import { offlineResult } from './scan.ts';
import { askIssuer } from './scan-online.ts';
import type { IssuerContact, ScanContext, ScanResult } from './scan-result.ts';
import type { OfflineVerdict } from './verdict.ts';

/** The device's own verdict on a holder known by name, as an offline verdict. */
export function namedVerdict(ctx: ScanContext, holder: NamedHolder, gate: string | null): OfflineVerdict {
  const { outcome, refusal, attention, checkin_texts } = judgeHolder(ctx, holder, gate);
  const admit = outcome === 'valid';
  return {
    verdict: admit ? 'admit' : 'reject',
    reason: outcome,
    tid: holder.tid,
    claims: null,
    refusal,
    attention,
    checkin_texts,
  };
}

/** A new queued entry for a holder known by name, marked as the device decided it. */
function namedScan(ctx: ScanContext, local: OfflineVerdict, tid: string, gate: string | null, how: 'manual' | 'typed') {
  const admitted = local.verdict === 'admit';
  const scan: QueuedScan = {
    idempotency_key: crypto.randomUUID(),
    tid,
    ticket_token: '',
    send_token: false,
    scanned_at: ctx.now().toISOString(),
    gate_id: gate,
    admitted_offline: admitted,
    turned_away: !admitted,
    verdict: local.verdict,
    reason: local.reason,
    maybe_sent_plain: false,
    before: holderOnDevice(ctx, tid),
    ...(how === 'manual' ? { manual: true as const } : { typed: true as const }),
  };
  return scan;
}

/** What the verdict screen shows of a holder known by name. */
const namedTicket = (holder: Partial<ChosenHolder>) => ({
  holder_name: holder.holder_name ?? null,
  ticket_type: holder.ticket_type ?? null,
  checked_in_at: null,
  checked_in_gate: null,
});

/**
 * Checks the chosen members of a group in: each judged on its own by the device, all stored with one
 * durable write, and sent by the next sync in one upload. One verdict each, in order (a member
 * chosen twice is checked in once).
 */
export async function queueGroup(
  ctx: ScanContext,
  members: readonly (ChosenHolder & NamedHolder)[],
  gate: string | null,
): Promise<ScanResult[]> {
  const results: ScanResult[] = [];
  const scans: QueuedScan[] = [];
  const seen = new Set<string>();
  for (const member of members) {
    if (seen.has(member.tid)) continue;
    seen.add(member.tid);
    const local = namedVerdict(ctx, member, gate);
    const scan = namedScan(ctx, local, member.tid, gate, 'manual');
    scans.push(scan);
    const entries = entriesOf(ctx, scan.tid).length + (scan.admitted_offline ? 1 : 0);
    results.push(offlineResult(ctx, scan, namedTicket(member), 'not_asked', local, entries));
  }
  await ctx.queue.record(
    scans,
    scans.filter((s) => s.admitted_offline).map((s) => s.tid),
  );
  return results;
}

/** The verdict for a typed code no ticket of the event has: as for an unknown ticket. Nothing is queued. */
export const unknownCode = (source: ScanResult['source'], contact: IssuerContact): ScanResult => ({
  verdict: 'reject',
  reason: 'NOT_FOUND',
  tid: null,
  source,
  idempotency_key: null,
  issuer_contact: contact,
  attention: false,
  checkin_texts: [],
});

/** A typed code's ticket, as the issuer's by-code route or the roster names it. */
export interface CodeTicket {
  tid: string;
  holder_name: string | null;
  ticket_type: string | null;
}

/**
 * Checks a ticket in by its typed code, once resolved. Online (`ask`), the issuer's answer is the
 * verdict and the device's own stands without one; offline, the device's verdict, queued.
 */
export async function checkInTyped(
  ctx: ScanContext,
  ticket: CodeTicket,
  holder: NamedHolder,
  gate: string | null,
  ask: boolean,
  contact: IssuerContact = 'not_asked',
): Promise<ScanResult> {
  const local = namedVerdict(ctx, holder, gate);
  const scan = namedScan(ctx, local, ticket.tid, gate, 'typed');
  const shown = namedTicket({
    holder_name: ticket.holder_name ?? undefined,
    ticket_type: ticket.ticket_type ?? undefined,
  });
  if (ask) {
    // Sent as a scan to decide, not as the device's verdict: the issuer's answer is the one shown.
    Object.assign(scan, { admitted_offline: false, turned_away: false });
    const result = await askIssuer(ctx, scan, local);
    const known = result.ticket ?? shown;
    const ticket = {
      ...known,
      holder_name: known.holder_name ?? shown.holder_name,
      ticket_type: known.ticket_type ?? shown.ticket_type,
    };
    return result.tid === null ? result : { ...result, ticket };
  }
  await ctx.queue.record([scan], scan.admitted_offline ? [scan.tid] : []);
  const entries = entriesOf(ctx, scan.tid).length;
  return offlineResult(ctx, scan, shown, contact, local, entries);
}
