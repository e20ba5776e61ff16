import type { CheckInAnswer, CheckOutAnswer } from '@ticket-issuer/protocol';
import type { IssuerClient } from './client.ts';
import type { AnnulAnswer } from './issuer-answers.ts';
import {
  type IssuerHttpError,
  IssuerNetworkError,
  isRateLimited,
  isRefusal,
  isTransient,
  isTurnedAwayAnswer,
} from './errors.ts';
import { uploadInBatches } from './upload.ts';
import type { FeedKnowledge } from './knowledge.ts';
import { annulBody, isAnnul, type QueuedAnnul, type QueuedItem } from './queued-annul.ts';
import { checkInBody, deviceReport, type QueuedScan, type ScanQueue } from './queue.ts';
import { DEFAULT_RETRY_POLICY, realTimer, type RetryPolicy, type Timer, withRetry } from './retry.ts';
import type { Storage } from './storage/storage.ts';
import { Tally, type UploadReport } from './tally.ts';

export { emptyOutcomes, refusedLine, Tally, type SyncOutcome, type UploadReport } from './tally.ts';

/** What uploading needs: the issuer, the queue, where refusals go, and who is sending. */
export interface UploadContext {
  client: IssuerClient;
  queue: ScanQueue;
  storage: Storage;
  checkInUrl: string;
  /** Where exit scans go (the discovery document's `check_out`). */
  checkOutUrl?: string;
  who: { eid: string; scanner_id: string };
  policy?: RetryPolicy;
  timer?: Timer;
  /** Tickets uploaded at once (each ticket's scans one after another); default `SYNC_IN_FLIGHT`. */
  concurrency?: number;
  /** Per-request time limit in ms (default: the client's). */
  timeoutMs?: number;
  /** The device's own clock, uncorrected: an upload's `sent_at` (absent: none is sent). */
  deviceClock?: () => Date;
}

/**
 * How one queued scan ended: an outcome from the issuer; the issuer's 409 `turned_away_offline` (it
 * would have said `valid`, and kept the ticket unused because the device turned the holder away); or
 * a refusal for good. A queued annul ends annulled (the issuer's answer), or refused.
 */
export type Settled =
  | { kind: 'outcome'; answer: CheckInAnswer | CheckOutAnswer }
  | { kind: 'turned_away' }
  | { kind: 'annulled'; answer: AnnulAnswer }
  | { kind: 'refused'; error: IssuerHttpError };

/** The check-out endpoint: the discovery document's, else beside check-in (an older document names none). */
export function checkOutUrl(ctx: { checkInUrl: string; checkOutUrl?: string }): string {
  return ctx.checkOutUrl ?? ctx.checkInUrl.replace(/\/check-in$/, '/check-out');
}

/** The annul endpoint, under check-in (the discovery document does not name it). */
export function annulUrl(ctx: { checkInUrl: string }): string {
  return `${ctx.checkInUrl}/annul`;
}

/** Where a queued scan goes: the check-in endpoint, or for an exit the check-out one. */
function sendScan(ctx: UploadContext, scan: QueuedScan, plain: boolean): Promise<CheckInAnswer | CheckOutAnswer> {
  const body = checkInBody(scan, ctx.who, plain);
  if (scan.direction !== 'out') return ctx.client.checkIn(ctx.checkInUrl, body, ctx.timeoutMs);
  return ctx.client.checkOut(checkOutUrl(ctx), body, ctx.timeoutMs);
}

/**
 * Requests in flight during an upload, each on a kept-alive connection of its own (HTTP/1.1 has one
 * request per connection at a time). With 16, one scanner's 10,000 queued scans took about a quarter
 * longer to upload than with 32: the issuer commits check-ins that arrive together in one
 * transaction, and bigger groups cost it less per check-in. 64 was about a tenth faster still, but
 * holds twice the connections on the device and the issuer (see docs/decisions.md).
 */
export const SYNC_IN_FLIGHT = 32;

/** A refusal, or the issuer's `turned_away_offline` answer, as a settled scan. */
export function settledBy(error: IssuerHttpError): Settled {
  return isTurnedAwayAnswer(error) ? { kind: 'turned_away' } : { kind: 'refused', error };
}

/**
 * Whether a 409 IDEMPOTENCY_CONFLICT may mean that the issuer holds the scan's plain body: an online
 * attempt may have delivered it without the device's report (`admitted_offline`, or
 * `signature_valid: false`). Resending the plain body once then gets the scan's answer.
 */
export function plainMayBeHeld(scan: QueuedItem, error: IssuerHttpError): scan is QueuedScan {
  if (isAnnul(scan)) return false;
  return error.issuerCode === 'IDEMPOTENCY_CONFLICT' && deviceReport(scan) !== 'none' && scan.maybe_sent_plain;
}

/**
 * Sends one queued scan exactly as it was made and settles it. A 409 IDEMPOTENCY_CONFLICT for a scan
 * an online attempt may have delivered plain is answered by resending that plain body once (see
 * `plainMayBeHeld`). Transient failures and a rejected key (401) throw.
 */
export async function settleScan(ctx: UploadContext, scan: QueuedScan): Promise<Settled> {
  const send = (plain: boolean) =>
    withRetry(() => sendScan(ctx, scan, plain), ctx.policy ?? DEFAULT_RETRY_POLICY, ctx.timer ?? realTimer);
  try {
    return { kind: 'outcome', answer: await send(false) };
  } catch (error) {
    if (!isRefusal(error)) throw error;
    if (!plainMayBeHeld(scan, error)) return settledBy(error);
    try {
      return { kind: 'outcome', answer: await send(true) };
    } catch (second) {
      if (isRefusal(second)) return settledBy(second);
      throw second;
    }
  }
}

/** Sends a queued annul as it was made and settles it: annulled, or refused for good; anything else throws. */
export async function settleAnnul(ctx: UploadContext, annul: QueuedAnnul): Promise<Settled> {
  const send = () => ctx.client.annul(annulUrl(ctx), annulBody(annul, ctx.who), ctx.timeoutMs);
  try {
    return {
      kind: 'annulled',
      answer: await withRetry(send, ctx.policy ?? DEFAULT_RETRY_POLICY, ctx.timer ?? realTimer),
    };
  } catch (error) {
    if (isRefusal(error)) return { kind: 'refused', error };
    throw error;
  }
}

/** Sends and settles a queued scan or annul. */
export const settleItem = (ctx: UploadContext, item: QueuedItem): Promise<Settled> =>
  isAnnul(item) ? settleAnnul(ctx, item) : settleScan(ctx, item);

/** The queued scans grouped by ticket, each group in scan order, groups in order of first scan. */
export function byTicket<T extends QueuedItem>(scans: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const scan of scans) {
    const group = groups.get(scan.tid);
    if (group) group.push(scan);
    else groups.set(scan.tid, [scan]);
  }
  return [...groups.values()];
}

/** The upload of scans one request each: workers take a ticket's scans each, one ticket at a time. */
class Upload {
  private next = 0;
  private fatal: unknown = null;

  constructor(
    private readonly ctx: UploadContext,
    private readonly groups: QueuedItem[][],
    private readonly tally: Tally,
  ) {}

  async run(concurrency: number): Promise<void> {
    const worker = () =>
      this.work().catch((error: unknown) => {
        this.fatal ??= error;
      });
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    if (this.fatal !== null) throw this.fatal;
  }

  private get stopped(): boolean {
    return !this.tally.report.reachable || this.fatal !== null;
  }

  private async work(): Promise<void> {
    while (!this.stopped && this.next < this.groups.length) {
      await this.sendTicket(this.groups[this.next++]!);
    }
  }

  /** A ticket's scans in scan order; the first that gets no answer holds back the ones after it. */
  private async sendTicket(group: QueuedItem[]): Promise<void> {
    for (const scan of group) {
      if (this.stopped) return;
      let settled: Settled;
      try {
        settled = await settleItem(this.ctx, scan);
      } catch (error) {
        if (error instanceof IssuerNetworkError) this.tally.report.reachable = false;
        // Anything else (a rejected key above all) stops the whole upload; this scan stays queued.
        if (!isTransient(error) && !isRateLimited(error)) throw error;
        this.tally.report.problem = error as Error;
        return;
      }
      await this.tally.record(scan, settled);
    }
  }
}

/**
 * Uploads every queued scan and annul, each ticket's in the order made (an annul after the scan it
 * undoes): in uploads of up to 500 scans
 * (`POST /api/v1/tickets/scans`, see upload.ts), or against an issuer without that route one request
 * per scan, tickets in parallel (`SYNC_IN_FLIGHT` requests on kept-alive connections). Stops taking
 * new work when the issuer cannot be reached; a ticket whose scan keeps failing with 5xx is left
 * queued and the others go on.
 */
export async function uploadQueue(ctx: UploadContext): Promise<UploadReport> {
  const tally = new Tally(ctx.queue, ctx.storage);
  try {
    const alone = await uploadInBatches(ctx, byTicket(ctx.queue.items()), tally);
    if (alone.length > 0) await new Upload(ctx, alone, tally).run(ctx.concurrency ?? SYNC_IN_FLIGHT);
  } finally {
    await tally.flush();
  }
  return tally.report;
}

/** Follows the changes feed from the stored cursor until `has_more` is false; returns how many entries came. */
export async function pullChanges(
  client: IssuerClient,
  url: string,
  knowledge: FeedKnowledge,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  timer: Timer = realTimer,
): Promise<number> {
  let count = 0;
  for (;;) {
    const page = await withRetry(() => client.changes(url, knowledge.cursor), policy, timer);
    const moved = page.next_cursor !== knowledge.cursor;
    // Kept in memory until the sync stores them (see knowledge-store.ts).
    knowledge.advance(page.changes, page.next_cursor);
    count += page.changes.length;
    // A page that neither brings changes nor moves the cursor would loop for ever.
    if (!page.has_more || (!moved && page.changes.length === 0)) return count;
  }
}
