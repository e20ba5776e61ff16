import type { ChangeRecord, ConflictRecord } from './feed-records.ts';
import type { Page } from './records.ts';

/** The changes feed offline scanners sync, and the conflicts report. Every method is one transaction; each says what it guarantees. */
export interface FeedStore {
  /**
   * The event's changes after `after` (a position; 0 for the start), in position order. A position
   * is taken under a per-event lock inside the transaction that makes the change, so positions
   * become visible in order: a reader following its last position never skips one.
   */
  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }>;
  /**
   * The event's offline double entries, in the order of their valid check-ins (cursor: that scan's
   * scan_id): tickets with an `already_used` scan from another scanner than the valid check-in's that
   * was admitted offline, or that said nothing of an offline verdict and was scanned before the valid
   * check-in was received. A scan turned away offline (`admitted_offline: false`) is never one.
   */
  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>>;
}
