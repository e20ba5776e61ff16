import { isStoreUnavailable } from '../store/unavailable.ts';
import { checkIn, checkOut } from './check-in.ts';
import { IssuerError } from './errors.ts';

/**
 * The single endpoint's decision for each scanning action of an upload: one code path, however a
 * scan arrived (an annul is `annulByScanner`'s, as at its endpoint).
 */
export const SCAN_BY_ACTION: Record<'check_in' | 'check_out', typeof checkIn> = {
  check_in: checkIn,
  check_out: checkOut,
};

/**
 * The ticket each scan of an upload is about, for `inTicketOrder`: its `tid`, or for an annul (which
 * names only its entry's idempotency key) the ticket of the check-in sent under that key in the same
 * upload, so that an annul is applied after the entry it undoes.
 */
export function ticketOfScan(scans: readonly Record<string, unknown>[]): (scan: Record<string, unknown>) => unknown {
  const byKey = new Map<unknown, unknown>();
  for (const scan of scans) if (scan.action === 'check_in') byKey.set(scan.idempotency_key, scan.tid);
  return (scan) => (scan.action === 'annul' ? byKey.get(scan.idempotency_key) : scan.tid);
}

/**
 * Applies the scans of one upload and returns what `apply` made of each, in order. Each ticket's
 * scans run one after another in the order given; different tickets run side by side, at most
 * `concurrency` at once, so that the store commits them together (SQLite's group commit, PostgreSQL's
 * check-in batch) without one upload taking every connection. What `apply` throws for a scan (a store
 * that could not serve it) is that scan's answer through `failed`, and the ticket's later scans get the
 * same answer unapplied (they must not overtake it); the other tickets' scans keep their answers.
 */
export async function inTicketOrder<T, R>(
  scans: readonly T[],
  ticketOf: (scan: T) => unknown,
  apply: (scan: T) => Promise<R>,
  failed: (error: unknown, scan: T) => R,
  concurrency = Number.POSITIVE_INFINITY,
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
  const runTicket = async (indexes: number[]) => {
    let failure: { error: unknown } | null = null;
    for (const index of indexes) {
      if (failure === null) {
        try {
          results[index] = await apply(scans[index]!);
          continue;
        } catch (error) {
          failure = { error };
        }
      }
      results[index] = failed(failure.error, scans[index]!);
    }
  };
  const groups = [...byTicket.values()];
  let next = 0;
  const worker = async () => {
    while (next < groups.length) await runTicket(groups[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, groups.length)) }, worker));
  return results;
}

/** Whether a scan failed for want of the store (its answer is then 503, the scanner sends it again). */
export const unserved = (error: unknown): boolean =>
  isStoreUnavailable(error) || (error instanceof IssuerError && error.code === 'UNAVAILABLE');

/**
 * An upload's policy (`POST /api/v1/tickets/scans`): its scans applied as `inTicketOrder` says, a scan
 * the store could not serve answered by `unservedAnswer` (its ticket's later scans too, unapplied) while
 * the others keep their answers; when some scan met an unavailable store and the store does not answer
 * `storeServes` either, the whole upload fails with that error, so that the scanner keeps its queue and
 * sends it again. Anything else `apply` throws is the issuer's fault and fails the upload too.
 */
export async function applyUpload<T, R>(
  scans: readonly T[],
  ticketOf: (scan: T) => unknown,
  apply: (scan: T) => Promise<R>,
  unservedAnswer: (scan: T) => R,
  deps: { concurrency: number; storeServes: () => Promise<boolean> },
): Promise<R[]> {
  let failure: { error: unknown } | null = null;
  const results = await inTicketOrder(
    scans,
    ticketOf,
    apply,
    (error, scan) => {
      if (!unserved(error)) throw error;
      failure ??= { error };
      return unservedAnswer(scan);
    },
    deps.concurrency,
  );
  if (failure !== null && !(await deps.storeServes())) throw (failure as { error: unknown }).error;
  return results;
}
