import {
  MAX_SCANS_PER_UPLOAD,
  type ScanUploadAnnul,
  type ScanUploadItem,
  type ScanUploadResult,
  UPLOAD_BODY_LIMIT_BYTES,
} from '@ticket-issuer/protocol';
import { annulAnswerOf, scanAnswerOf } from './issuer-answers.ts';
import { IssuerHttpError, IssuerNetworkError, isKeyRejected, isRateLimited, isRefusal, isTransient } from './errors.ts';
import { annulBody, isAnnul, type QueuedItem } from './queued-annul.ts';
import { checkInBody } from './queue.ts';
import { DEFAULT_RETRY_POLICY, realTimer, withRetry } from './retry.ts';
import { byTicket, plainMayBeHeld, type Settled, settledBy, type Tally, type UploadContext } from './sync.ts';

/** How long one upload of up to 500 scans may take before it counts as unanswered (and is retried). */
export const UPLOAD_TIMEOUT_MS = 30_000;

/** Room left in an upload's body for the envelope around the scans. */
const BODY_BUDGET = UPLOAD_BODY_LIMIT_BYTES - 4096;

const utf8 = new TextEncoder();

/** The upload endpoint: beside check-in (the discovery document does not name it). */
export function uploadUrl(ctx: { checkInUrl: string }): string {
  return ctx.checkInUrl.replace(/\/check-in$/, '/scans');
}

/** A queued scan or annul as an upload carries it: its action, then the body its single endpoint would get. */
function uploadItem(ctx: UploadContext, scan: QueuedItem, plain: boolean): ScanUploadItem | ScanUploadAnnul {
  if (isAnnul(scan)) return { action: 'annul', ...annulBody(scan, ctx.who) };
  return { action: scan.direction === 'out' ? 'check_out' : 'check_in', ...checkInBody(scan, ctx.who, plain) };
}

/**
 * How an upload's result settles its scan or annul, as that one's own answer would; an error for an
 * answer that settles nothing (or a scan's refusal, which may still hide a plain body: see `settle`).
 */
function resultOf(scan: QueuedItem, result: ScanUploadResult): Settled | IssuerHttpError {
  if (isAnnul(scan)) {
    const answer = annulAnswerOf(result.status_code, result.body);
    if (!(answer instanceof IssuerHttpError)) return { kind: 'annulled', answer };
    return isRefusal(answer) ? { kind: 'refused', error: answer } : answer;
  }
  const answer = scanAnswerOf(scan.direction === 'out' ? 'check_out' : 'check_in', result.status_code, result.body);
  return answer instanceof IssuerHttpError ? answer : { kind: 'outcome', answer };
}

/**
 * Whether the next scan of a ticket must go in a later upload than `scan`: an annul whose entry was
 * sent before this upload. The issuer applies an annul after the entry it undoes when both are in
 * one upload; alone there, it is applied beside the ticket's other scans, so none follows it there.
 */
function endsItsTicket(scan: QueuedItem, upload: readonly QueuedItem[]): boolean {
  return isAnnul(scan) && !upload.some((other) => !isAnnul(other) && other.idempotency_key === scan.idempotency_key);
}

/**
 * The scans, ticket by ticket, in uploads of at most 500 scans and 1 MiB. A ticket's scans stay in
 * one upload when they fit in one; a ticket with more is spread over consecutive ones, and so is one
 * with scans after an annul whose entry went up earlier (see `endsItsTicket`).
 */
export function uploadsOf<T extends QueuedItem>(groups: T[][], bytesOf: (scan: T) => number): T[][] {
  const uploads: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  const close = () => {
    if (current.length > 0) uploads.push(current);
    current = [];
    bytes = 0;
  };
  const fits = (count: number, size: number) =>
    current.length + count <= MAX_SCANS_PER_UPLOAD && bytes + size <= BODY_BUDGET;
  for (const group of groups) {
    const sizes = group.map((scan) => bytesOf(scan) + 1);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    if (!fits(group.length, total) && group.length <= MAX_SCANS_PER_UPLOAD && total <= BODY_BUDGET) close();
    group.forEach((scan, i) => {
      const previous = group[i - 1];
      if (!fits(1, sizes[i]!) || (previous !== undefined && endsItsTicket(previous, current))) close();
      current.push(scan);
      bytes += sizes[i]!;
    });
  }
  close();
  return uploads;
}

/**
 * An answer to the upload as a whole that says this issuer does not take uploads (an issuer from
 * before the route: 404, 405), or not this one (400, 413: a proxy's smaller body limit): its scans
 * are then sent one request each, as before.
 */
function notTaken(error: unknown): boolean {
  return error instanceof IssuerHttpError && [400, 404, 405, 413, 415].includes(error.status);
}

/**
 * Uploads the queue in uploads of up to 500 scans, one after another, each scan settled by its result
 * exactly as its single answer would settle it: an outcome or a refusal for good is recorded, a 401
 * stops the sync (every scan not answered stays queued), a 5xx leaves the scan queued and holds back
 * its ticket's later scans while the other tickets go on. An upload that gets no answer even after
 * the retry policy's tries (429s waited out as `Retry-After` says) stops the work: it and the rest
 * stay queued for the next sync. Returns the scans to send one request each instead: those not
 * uploaded yet when the issuer does not take uploads, else none.
 */
export async function uploadInBatches(
  ctx: UploadContext,
  groups: QueuedItem[][],
  tally: Tally,
): Promise<QueuedItem[][]> {
  const held = new Set<string>();
  const send = (scans: QueuedItem[], plain: boolean) =>
    withRetry(
      () =>
        ctx.client.uploadScans(
          uploadUrl(ctx),
          scans.map((scan) => uploadItem(ctx, scan, plain)),
          ctx.timeoutMs ?? UPLOAD_TIMEOUT_MS,
          ctx.deviceClock?.(),
        ),
      ctx.policy ?? DEFAULT_RETRY_POLICY,
      ctx.timer ?? realTimer,
    );
  /** An upload that got no answer for good: its scans stay queued; no answer at all stops the work. */
  const unanswered = (error: unknown, scans: QueuedItem[]) => {
    if (isKeyRejected(error) || !(isTransient(error) || isRateLimited(error) || notTaken(error))) throw error;
    if (error instanceof IssuerNetworkError) tally.report.reachable = false;
    tally.report.problem = error as Error;
    for (const scan of scans) held.add(scan.tid);
  };
  /** Records each result; returns the scans whose conflict may hide a plain body the issuer holds. */
  const settle = async (scans: QueuedItem[], results: ScanUploadResult[], plainAllowed: boolean) => {
    const plain: QueuedItem[] = [];
    let rejectedKey: IssuerHttpError | null = null;
    for (const [i, scan] of scans.entries()) {
      const answer = resultOf(scan, results[i]!);
      if (!(answer instanceof IssuerHttpError)) await tally.record(scan, answer);
      else if (isRefusal(answer) && plainAllowed && plainMayBeHeld(scan, answer)) plain.push(scan);
      else if (isRefusal(answer)) await tally.record(scan, settledBy(answer));
      else if (isKeyRejected(answer)) rejectedKey ??= answer;
      else {
        // The issuer did not answer this scan (a 5xx): it stays queued, and its ticket's later scans wait.
        tally.report.problem = answer;
        held.add(scan.tid);
      }
    }
    if (rejectedKey !== null) throw rejectedKey;
    return plain;
  };

  const uploads = uploadsOf(groups, (scan) => utf8.encode(JSON.stringify(uploadItem(ctx, scan, false))).length);
  for (const [index, upload] of uploads.entries()) {
    const scans = upload.filter((scan) => !held.has(scan.tid));
    if (scans.length === 0) continue;
    let results: ScanUploadResult[];
    try {
      results = await send(scans, false);
    } catch (error) {
      // An issuer without uploads (or one of several behind a balancer, during an upgrade): one by one.
      if (notTaken(error)) return notHeld(uploads.slice(index), held);
      // The issuer did not take it even after retrying: the rest waits for the next sync.
      unanswered(error, scans);
      return [];
    }
    const plain = await settle(scans, results, true);
    if (plain.length === 0) continue;
    try {
      await settle(plain, await send(plain, true), false);
    } catch (error) {
      unanswered(error, plain);
    }
  }
  return [];
}

/** The scans of `groups` whose ticket is not held back, still grouped by ticket. */
export function notHeld(groups: QueuedItem[][], held: ReadonlySet<string>): QueuedItem[][] {
  return byTicket(groups.flat().filter((scan) => !held.has(scan.tid)));
}
