import type { ScanAction } from '@ticket-issuer/protocol';
import { checkIn, checkOut } from './check-in.ts';

/** The single endpoint's decision for each action of an upload: one code path, however a scan arrived. */
export const SCAN_BY_ACTION: Record<ScanAction, typeof checkIn> = { check_in: checkIn, check_out: checkOut };

/**
 * Applies the scans of one upload and returns what `apply` made of each, in order. Each ticket's
 * scans run one after another in the order given; different tickets run side by side, so that the
 * store commits them together (SQLite's group commit, PostgreSQL's check-in batch). `apply` answers
 * a scan's own refusals itself; what it throws (a store that cannot serve) fails the upload as a
 * whole: no scan not yet begun is applied, and the error is rethrown once those under way end.
 */
export async function inTicketOrder<T, R>(
  scans: readonly T[],
  ticketOf: (scan: T) => unknown,
  apply: (scan: T) => Promise<R>,
): Promise<R[]> {
  const byTicket = new Map<unknown, number[]>();
  scans.forEach((scan, index) => {
    const ticket = ticketOf(scan);
    // A scan that names no ticket is a ticket of its own (it is refused anyway).
    const group = typeof ticket === 'string' ? byTicket.get(ticket) : undefined;
    if (group) group.push(index);
    else byTicket.set(typeof ticket === 'string' ? ticket : Symbol('no ticket'), [index]);
  });
  const results: R[] = new Array<R>(scans.length);
  let failure: { error: unknown } | null = null;
  const runTicket = async (indexes: number[]) => {
    for (const index of indexes) {
      if (failure !== null) return;
      try {
        results[index] = await apply(scans[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all([...byTicket.values()].map(runTicket));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
