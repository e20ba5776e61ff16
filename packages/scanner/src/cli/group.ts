/**
 * `ticket-scanner scan TOKEN --group`: after the scanned ticket's own verdict, the others of its group
 * (its order's tickets not inside, not revoked) are checked in, one check-in each, judged by the issuer
 * on its own, and each gets its own line.
 */
import { othersToCheckIn } from '../group.ts';
import type { ScanResult } from '../scan-result.ts';
import type { Scanner } from '../scanner.ts';

/** The verdicts of the group's other members; none for input that named no ticket. */
export async function checkInRestOfGroup(scanner: Scanner, scanned: ScanResult, gate: string | null) {
  if (scanned.tid === null) return [];
  const group = await scanner.group(scanned.tid);
  return scanner.checkInGroup(othersToCheckIn(group, scanned.tid), { gate });
}
