import type { EnrollResult } from '../enroll.ts';
import type { ScanResult } from '../scan-result.ts';
import type { StatusReport, SyncResult } from '../scanner.ts';

/** The `enroll` line of `--json`: exactly the contract's fields (the first sync's result goes to stderr). */
export function enrollJson(result: EnrollResult): Record<string, unknown> {
  const { scanner_id, api_key_id, eid, event_name, gate_id } = result;
  return { scanner_id, api_key_id, eid, event_name, gate_id };
}

/** The `sync` line of `--json`: exactly the contract's fields. */
export function syncJson(result: SyncResult): Record<string, unknown> {
  const { uploaded, remaining, refused, outcomes, changes } = result;
  return { uploaded, remaining, refused, outcomes, changes };
}

/**
 * A verdict line of `--json`: exactly the contract's fields (the screen's details stay out), and
 * `"synced": false` on a verdict decided on a device that never synced the feed and the gates.
 */
export function scanJson(result: ScanResult): Record<string, unknown> {
  const { verdict, reason, tid, source, idempotency_key } = result;
  return { verdict, reason, tid, source, idempotency_key, ...(result.synced === false ? { synced: false } : {}) };
}

/** One human-readable line per result, for a person at the gate or the terminal. */
export const human = {
  enroll: (r: EnrollResult) =>
    `Enrolled scanner ${r.scanner_id} (key ${r.api_key_id}) for "${r.event_name}" (${r.eid}), ${
      r.gate_id === null ? 'all gates' : `gate ${r.gate_id}`
    }`,
  scan: (r: ScanResult) =>
    `${{ admit: 'ADMIT ', exit: 'EXIT  ', reject: 'REJECT' }[r.verdict]}  ${r.reason.padEnd(17)}  ${r.tid ?? '-'}  (${r.source}${
      r.synced === false ? ', never synced' : ''
    })`,
  sync: (r: SyncResult) => {
    const outcomes = Object.entries(r.outcomes)
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(', ');
    return `Uploaded ${r.uploaded}${outcomes ? ` (${outcomes})` : ''}, refused ${r.refused}, remaining ${r.remaining}; pulled ${r.changes} change(s)`;
  },
  status: (r: StatusReport) =>
    `Scanner ${r.scanner_id} (key ${r.api_key_id}) of ${r.issuer}, event ${r.eid}, ${
      r.gate_id === null ? 'all gates' : `gate ${r.gate_id}`
    }: ${r.queued} queued, last sync ${r.last_sync_at ?? 'never'}, ${r.revoked_known} revoked and ${r.checked_in_known} checked in known`,
};
