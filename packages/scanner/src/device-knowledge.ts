/**
 * What a device knows about a ticket when it decides on its own: the changes feed, its own
 * admissions, moves and entries (answered or still queued), and the event's rules, gathered into the
 * facts the shared rules judge (`LocalKnowledge`).
 */
import type { ScanContext } from './scan-result.ts';
import type { LocalKnowledge, TidSet } from './verdict.ts';

/**
 * What the device knows for a verdict: the feed, its own admissions, moves and entries, the event's
 * rules. `batch`: the entries admitted earlier in the same offline batch, not stored yet.
 */
export function knowledgeFor(
  ctx: ScanContext,
  admitted: TidSet,
  batch?: ReadonlyMap<string, readonly string[]>,
): LocalKnowledge {
  const { event, ticketTypes } = ctx.rules;
  return {
    ...ctx.knowledge,
    admitted,
    out: whoIsOut(ctx),
    reentry: event.reentry,
    calendar: event,
    ticketTypes,
    entries: { get: (tid) => entriesOf(ctx, tid, batch?.get(tid)) },
  };
}

/**
 * The `scanned_at` of a ticket's entries as this device knows them, each once: the feed's check-ins,
 * the entries the issuer counted on this device's scans since that feed, this device's admissions
 * still queued, and `extra`. An entry known two ways is one instant (the feed's `at` is the scan's time).
 */
export function entriesOf(ctx: ScanContext, tid: string, extra: readonly string[] = []): string[] {
  const byInstant = new Map<number, string>();
  const add = (at: string) => {
    const instant = Date.parse(at);
    if (!byInstant.has(instant)) byInstant.set(instant, at);
  };
  for (const at of ctx.knowledge.entries?.get(tid) ?? []) add(at);
  for (const entry of ctx.queue.entries.get(tid) ?? []) add(entry.at);
  for (const scan of ctx.queue.pending()) {
    if (scan.tid === tid && scan.direction !== 'out' && scan.admitted_offline) add(scan.scanned_at);
  }
  for (const at of extra) add(at);
  return [...byInstant.values()];
}

/**
 * The tickets whose holder the device knows went out: the feed's exits, then this device's own moves
 * the issuer answered since that feed, then its entries and exits still queued, in scan order (an
 * entry after an exit takes the holder in again).
 */
export function whoIsOut(ctx: ScanContext): Set<string> {
  const out = new Set(ctx.feedOut ?? []);
  for (const [tid, move] of ctx.queue.moves) {
    if (move.to === 'out') out.add(tid);
    else out.delete(tid);
  }
  for (const scan of ctx.queue.pending()) {
    if (scan.direction === 'out' && scan.verdict === 'exit') out.add(scan.tid);
    else if (scan.direction !== 'out' && scan.verdict === 'admit') out.delete(scan.tid);
  }
  return out;
}
