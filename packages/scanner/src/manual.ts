/**
 * A check-in gate staff chose from a search by the holder's name (a holder whose phone died): sent
 * with `manual: true` and no token, and decided by the issuer alone.
 */
import type { FoundHolder } from '@ticket-issuer/protocol';
import { holderOnDevice } from './device-knowledge.ts';
import type { QueuedScan } from './queue.ts';
import type { ScanContext, ScanResult } from './scan-result.ts';
import { askIssuer } from './scan-online.ts';
import type { OfflineVerdict } from './verdict.ts';

/**
 * The reason of a manual check-in the issuer did not answer: without a signed ticket the device has
 * nothing to judge, so the holder is not let in on it (try again, or scan the ticket).
 */
export const NO_ANSWER = 'no_answer';

/** What the device knows of the chosen holder: the search's answer, where it has one. */
export type ChosenHolder = Pick<FoundHolder, 'tid'> & Partial<FoundHolder>;

/**
 * Checks in a holder chosen from a search, like a scan: stored durably first, sent after the ticket's
 * queued earlier scans, and the issuer's answer is the verdict (an admit is remembered like any
 * other, so the device's offline rules and an Undo count it). Without an answer (no network, no
 * answer in time, a 5xx, a 429) the verdict is a reject, `no_answer`, and the scan stays queued as
 * turned away: when it reaches the issuer later it never checks the ticket in.
 */
export function checkInManual(ctx: ScanContext, holder: ChosenHolder, gate: string | null): Promise<ScanResult> {
  const scan: QueuedScan = {
    idempotency_key: crypto.randomUUID(),
    tid: holder.tid,
    ticket_token: '',
    send_token: false,
    scanned_at: ctx.now().toISOString(),
    gate_id: gate,
    admitted_offline: false,
    turned_away: false,
    // The device's own verdict, should the issuer not answer: no signed ticket, nothing to admit on.
    verdict: 'reject',
    reason: 'invalid_signature',
    maybe_sent_plain: false,
    before: holderOnDevice(ctx, holder.tid),
    manual: true,
  };
  const local: OfflineVerdict = {
    verdict: 'reject',
    reason: 'invalid_signature',
    tid: holder.tid,
    claims: null,
    refusal: null,
    attention: holder.attention ?? false,
    checkin_texts: holder.checkin_texts ?? [],
  };
  return askIssuer(ctx, scan, local).then((result) => {
    if (result.source !== 'offline') return result;
    const ticket = { holder_name: holder.holder_name ?? null, ticket_type: holder.ticket_type ?? null };
    return { ...result, reason: NO_ANSWER, ticket: { ...ticket, checked_in_at: null, checked_in_gate: null } };
  });
}
