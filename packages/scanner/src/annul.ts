/**
 * Undoing an entry at the gate (the wrong ticket in a stack, a turnstile that did not turn): online,
 * the issuer's annul endpoint decides; without it, the device judges on the shared rule
 * (`annulOutcome`) with what it knows, queues the annul after the scan it undoes, and at once counts
 * the entry no more and puts the holder back where they were before it.
 */
import { ANNUL_REFUSALS, type AnnulRefusal, annulOutcome, withinAnnulWindow } from '@ticket-issuer/protocol';
import type { AnnulAnswer } from './issuer-answers.ts';
import { entriesOf, holderOnDevice } from './device-knowledge.ts';
import { type IssuerHttpError, isKeyRejected, isRefusal, ScannerError } from './errors.ts';
import type { Admission } from './queue.ts';
import { holderAfterAnnul } from './queued-annul.ts';
import { sendEarlierScans } from './scan.ts';
import type { ScanContext } from './scan-result.ts';
import { annulUrl } from './sync.ts';

/**
 * Why an annul was refused: the shared rule's reasons (`not_an_entry`, `window_passed`,
 * `not_latest`), `not_found` (no entry of this scanner under that key: the issuer's 404, or a key the
 * device does not know), or the issuer's error code for any other refusal.
 */
export type AnnulReason = AnnulRefusal | 'not_found' | (string & {});

/**
 * What an annul came to. `source`: `issuer`, the issuer answered; `queued`, judged on the device and
 * queued for the next sync (the device counts the entry no more already); `device`, refused on the
 * device (offline, or no entry to name).
 */
export type AnnulResult =
  | { annulled: true; idempotency_key: string; tid: string | null; source: 'issuer' | 'queued' }
  | {
      annulled: false;
      idempotency_key: string | null;
      tid: string | null;
      source: 'issuer' | 'device';
      reason: AnnulReason;
      /** The refusal in words (the issuer's message, or the device's). */
      message: string;
    };

/** How to annul: `offline` judges on the device and queues without asking the issuer. */
export interface AnnulOptions {
  offline?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const DEVICE_REFUSALS: Record<AnnulRefusal | 'not_found', string> = {
  not_found: 'this device knows no entry of its own under this idempotency key',
  not_an_entry: 'this scan let no one in, so there is nothing to annul',
  window_passed: "this entry was scanned longer ago than the issuer's annul window, too long to be annulled",
  not_latest: 'the ticket moved since this entry (an exit, or a later entry), so it can no longer be annulled',
};

const refusal = (
  key: string | null,
  tid: string | null,
  source: 'issuer' | 'device',
  reason: AnnulReason,
  message: string,
): AnnulResult => ({ annulled: false, idempotency_key: key, tid, source, reason, message });

const deviceRefusal = (key: string | null, tid: string | null, reason: AnnulRefusal | 'not_found') =>
  refusal(key, tid, 'device', reason, DEVICE_REFUSALS[reason]);

/**
 * Annuls the entry this device made under `idempotencyKey` (default: its last admission). Online
 * (unless `options.offline`): the ticket's queued scans go first, then the issuer's answer decides;
 * without an answer (no network, a timeout, a 5xx, a 429) the device judges and queues. A rejected
 * key (401) throws; a key that is not a UUID is INVALID_OPTION.
 */
export async function annulEntry(
  ctx: ScanContext,
  idempotencyKey: string | undefined,
  options: AnnulOptions = {},
): Promise<AnnulResult> {
  if (idempotencyKey !== undefined && !UUID.test(idempotencyKey)) {
    throw new ScannerError('INVALID_OPTION', 'the idempotency key to annul must be a UUID');
  }
  const key = idempotencyKey?.toLowerCase() ?? ctx.queue.lastAdmission?.key;
  if (key === undefined) return refusal(null, null, 'device', 'not_found', 'this device has admitted no one yet');
  const annulledAt = ctx.now();
  if (options.offline) return annulOnDevice(ctx, key, annulledAt);
  return annulOnline(ctx, key, annulledAt);
}

/** The issuer decides; a refusal is its answer, no answer leaves it to the device. */
async function annulOnline(ctx: ScanContext, key: string, annulledAt: Date): Promise<AnnulResult> {
  const admission = ctx.queue.admission(key);
  const tid = admission?.tid ?? ctx.queue.pending().find((scan) => scan.idempotency_key === key)?.tid ?? null;
  if (tid !== null) {
    // The entry itself may still be queued, and an annul of it too: they go first, in order.
    if ((await sendEarlierScans(ctx, tid)) !== null) return annulOnDevice(ctx, key, annulledAt);
    if (ctx.queue.isAnnulled(key)) return { annulled: true, idempotency_key: key, tid, source: 'issuer' };
  }
  let answer: AnnulAnswer;
  try {
    const body = {
      eid: ctx.eid,
      scanner_id: ctx.scannerId,
      idempotency_key: key,
      annulled_at: annulledAt.toISOString(),
    };
    answer = await ctx.client.annul(annulUrl(ctx), body, ctx.onlineTimeoutMs);
  } catch (error) {
    if (!(error instanceof ScannerError) || isKeyRejected(error)) throw error;
    if (isRefusal(error)) return refusedBy(key, tid, error);
    return annulOnDevice(ctx, key, annulledAt);
  }
  const annulled = answer.ticket.tid;
  const to = holderAfterAnnul(answer.ticket.checked_in_at, admission?.before ?? 'unused');
  await ctx.queue.ack([], to === 'inside' ? [annulled] : [], to === 'out' ? [annulled] : [], [], {
    unused: to === 'unused' ? [annulled] : [],
    annulled: [{ key, tid: annulled, at: admission?.at ?? null }],
  });
  return { annulled: true, idempotency_key: key, tid: annulled, source: 'issuer' };
}

/** The issuer's refusal, with the rule's reason (409), `not_found` (404), or its error code. */
function refusedBy(key: string, tid: string | null, error: IssuerHttpError): AnnulResult {
  const ruled = (ANNUL_REFUSALS as readonly unknown[]).includes(error.details.reason);
  let reason: AnnulReason = error.issuerCode;
  if (error.status === 404) reason = 'not_found';
  else if (error.status === 409 && ruled) reason = error.details.reason as AnnulRefusal;
  return refusal(key, tid, 'issuer', reason, error.issuerMessage);
}

/**
 * The device judges (`annulOutcome`): an entry it made (an admission it remembers), within the
 * issuer's window of its scan (`annul_window_s` of the rules last synced; the default before), with
 * no later entry or exit of the ticket that it knows of. An annul it allows is queued after the scan
 * it undoes.
 */
async function annulOnDevice(ctx: ScanContext, key: string, annulledAt: Date): Promise<AnnulResult> {
  const admission = ctx.queue.admission(key);
  if (admission === undefined) {
    const scan = ctx.queue.pending().find((other) => other.idempotency_key === key);
    return deviceRefusal(key, scan?.tid ?? null, scan ? 'not_an_entry' : 'not_found');
  }
  const { tid } = admission;
  if (admission.annulled) {
    // The same annul again: as it was answered, or as it waits.
    return { annulled: true, idempotency_key: key, tid, source: ctx.queue.annulQueued(key) ? 'queued' : 'issuer' };
  }
  const outcome = annulOutcome({
    isEntry: true,
    withinWindow: withinAnnulWindow(admission.at, annulledAt, ctx.rules.annulWindowS),
    latest: isLatest(ctx, admission),
  });
  if (outcome !== 'annulled') return deviceRefusal(key, tid, outcome);
  await ctx.queue.queueAnnul({
    action: 'annul',
    idempotency_key: key,
    tid,
    annulled_at: annulledAt.toISOString(),
    entry_at: admission.at,
    before: admission.before,
  });
  return { annulled: true, idempotency_key: key, tid, source: 'queued' };
}

/**
 * Whether the entry is still the ticket's latest move as far as the device knows: no later entry
 * (the feed's, or its own) and no exit since (the holder it let in is not out).
 */
function isLatest(ctx: ScanContext, admission: Readonly<Admission>): boolean {
  const at = Date.parse(admission.at);
  if (entriesOf(ctx, admission.tid).some((other) => Date.parse(other) > at)) return false;
  return holderOnDevice(ctx, admission.tid) !== 'out';
}
