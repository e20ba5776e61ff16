/**
 * `ticket-scanner scan TOKEN --group`: after the scanned ticket's own verdict, the others of its group
 * (its order's tickets not inside, not revoked; the roster's when the issuer cannot answer, or with
 * --offline) are checked in, each judged on its own, queued together, and each gets its own line.
 */
import { othersToCheckIn } from '../group.ts';
import type { ScanResult } from '../scan-result.ts';
import type { Scanner } from '../scanner.ts';

/** The verdicts of the group's other members; none for input that named no ticket. */
export async function checkInRestOfGroup(scanner: Scanner, scanned: ScanResult, gate: string | null, offline: boolean) {
  if (scanned.tid === null) return [];
  const group = await scanner.group(scanned.tid, { offline });
  return scanner.checkInGroup(othersToCheckIn(group, scanned.tid), { gate });
}
