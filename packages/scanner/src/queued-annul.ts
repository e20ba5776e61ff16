/**
 * A queued annul: the undo of an entry this device made, kept in the queue after the scan it undoes
 * until the issuer answers it, and the body it is sent as.
 */
import type { AnnulRequestBody, HolderState } from '@ticket-issuer/protocol';
import type { QueuedScan } from './queued-scan.ts';

/** An annul waiting for the issuer (`POST /api/v1/tickets/check-in/annul`, or an upload's `annul`). */
export interface QueuedAnnul {
  action: 'annul';
  /** The idempotency key of the entry it undoes (the key its check-in was sent with). */
  idempotency_key: string;
  tid: string;
  /** The device's time of the undo; sent unchanged however late. */
  annulled_at: string;
  /** The `scanned_at` of the entry it undoes. */
  entry_at: string;
  /** Where the holder was before that entry: where the undo puts them back. */
  before: HolderState;
}

/** What the queue holds, in the order it was recorded: scans, and the annuls that follow them. */
export type QueuedItem = QueuedScan | QueuedAnnul;

export const isAnnul = (item: QueuedItem): item is QueuedAnnul => (item as QueuedAnnul).action === 'annul';

/** The key an item is kept and acknowledged under: a scan's own, or `annul:` and its entry's. */
export const queueKeyOf = (item: QueuedItem): string =>
  isAnnul(item) ? annulQueueKey(item.idempotency_key) : item.idempotency_key;

export const annulQueueKey = (entryKey: string): string => `annul:${entryKey}`;

/** The annul's request body. */
export function annulBody(annul: QueuedAnnul, who: { eid: string; scanner_id: string }): AnnulRequestBody {
  return {
    eid: who.eid,
    scanner_id: who.scanner_id,
    idempotency_key: annul.idempotency_key,
    annulled_at: annul.annulled_at,
  };
}

/**
 * Where the holder is after the issuer annulled an entry: unused when the ticket has no entry left
 * (`checked_in_at` null), else back where the device saw them before it (inside, when it had seen no
 * entry before: the issuer knows an earlier one).
 */
export function holderAfterAnnul(checkedInAt: string | null, before: HolderState): HolderState {
  if (checkedInAt === null) return 'unused';
  return before === 'unused' ? 'inside' : before;
}
