/**
 * What `status` reports of a scanner: who it is, what it knows, and what the last sync of the rules
 * said of the issuer (its undo window, and how far off this device's clock is).
 */
import type { FeedKnowledge } from './knowledge.ts';
import type { ScanQueue } from './queue.ts';
import type { KnownRules } from './rules.ts';
import type { ScannerIdentity } from './state.ts';

/** What `status` reports. */
export interface StatusReport {
  issuer: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  api_key_id: string;
  queued: number;
  last_sync_at: string | null;
  revoked_known: number;
  checked_in_known: number;
  /** The issuer's undo window as last synced (`ANNUL_WINDOW_S`; 900 until then). */
  annul_window_s: number;
  /**
   * This device's clock minus the issuer's, in whole seconds (positive: ahead), measured at the last
   * sync of the rules; null when not known.
   */
  clock_offset_s: number | null;
}

/** The status of a scanner: its identity, its queue, what the feed and the rules taught it. */
export function statusReport(
  identity: ScannerIdentity,
  knowledge: FeedKnowledge,
  queue: ScanQueue,
  rules: KnownRules,
): StatusReport {
  let checkedIn = knowledge.checkedIn.size;
  for (const tid of queue.admitted) if (!knowledge.checkedIn.has(tid)) checkedIn += 1;
  return {
    issuer: identity.issuer,
    eid: identity.eid,
    gate_id: identity.gate_id,
    scanner_id: identity.scanner_id,
    api_key_id: identity.api_key_id,
    queued: queue.size,
    last_sync_at: knowledge.lastSyncAt,
    revoked_known: knowledge.revoked.size,
    checked_in_known: checkedIn,
    annul_window_s: rules.annulWindowS,
    clock_offset_s: rules.clockOffsetMs === null ? null : Math.round(rules.clockOffsetMs / 1000),
  };
}
