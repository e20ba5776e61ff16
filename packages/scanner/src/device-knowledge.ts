/**
 * What a device knows about a ticket when it decides on its own: the changes feed, its own
 * admissions, moves, entries and annuls (answered or still queued), and the event's rules, gathered
 * into the facts the shared rules judge (`LocalKnowledge`).
 */
import type { HolderState } from '@ticket-issuer/protocol';
import { isAnnul } from './queued-annul.ts';
import type { ScanContext } from './scan-result.ts';
import type { LocalKnowledge } from './verdict.ts';

/**
 * What the device knows for a verdict: the feed, its own admissions, moves, entries and annuls, the
 * event's rules. `batch`: the entries admitted earlier in the same offline batch, not stored yet.
 */
export function knowledgeFor(ctx: ScanContext, batch?: ReadonlyMap<string, readonly string[]>): LocalKnowledge {
  const { event, ticketTypes } = ctx.rules;
  const known = new Map<string, HolderState>();
  const holder = (tid: string) => {
    let state = known.get(tid);
    if (state === undefined) known.set(tid, (state = holderOnDevice(ctx, tid, batch?.has(tid) === true)));
    return state;
  };
  return {
    ...ctx.knowledge,
    checkedIn: { has: (tid) => holder(tid) !== 'unused' },
    admitted: { has: (tid) => holder(tid) !== 'unused' },
    out: { has: (tid) => holder(tid) === 'out' },
    reentry: event.reentry,
    autoExit: ctx.rules.autoExit,
    calendar: event,
    ticketTypes,
    entries: { get: (tid) => entriesOf(ctx, tid, batch?.get(tid)) },
  };
}

/**
 * The `scanned_at` of a ticket's entries as this device knows them, each once: the feed's check-ins,
 * the entries the issuer counted on this device's scans since that feed, this device's admissions
 * still queued, and `extra`; less the entries this device annulled (queued, or answered since that
 * feed). The feed's entries are told apart by their idempotency keys (two gates may let two holders of
 * one wristband in at the same instant); an entry known only by its instant (this device's own, or a
 * feed from an issuer that names no key) is the feed's entry at that instant, if there is one.
 */
export function entriesOf(ctx: ScanContext, tid: string, extra: readonly string[] = []): string[] {
  const annulled = new Set<number>();
  for (const entry of ctx.queue.annulled.get(tid) ?? []) if (entry.at !== null) annulled.add(Date.parse(entry.at));
  const items = ctx.queue.itemsOf(tid);
  for (const item of items) if (isAnnul(item)) annulled.add(Date.parse(item.entry_at));
  const entries: string[] = [];
  const instants = new Set<number>();
  const add = (at: string, key: string | null) => {
    const instant = Date.parse(at);
    if (annulled.has(instant) || (key === null && instants.has(instant))) return;
    instants.add(instant);
    entries.push(at);
  };
  const keys = ctx.knowledge.entryKeys?.get(tid) ?? [];
  (ctx.knowledge.entries?.get(tid) ?? []).forEach((at, i) => add(at, keys[i] ?? null));
  for (const entry of ctx.queue.entries.get(tid) ?? []) add(entry.at, null);
  for (const item of items) {
    if (!isAnnul(item) && item.direction !== 'out' && item.admitted_offline) add(item.scanned_at, null);
  }
  for (const at of extra) add(at, null);
  return entries;
}

/**
 * Where the device knows a ticket's holder is: as the feed left them (came in, went out since), then
 * this device's own last move the issuer answered since that feed (in, out, or unused again after an
 * annul), then its scans and annuls still queued in the order made (an entry takes the holder in, an
 * exit out, an annul back where they were before its entry). `admittedInBatch`: admitted earlier in
 * the same offline batch.
 */
export function holderOnDevice(ctx: ScanContext, tid: string, admittedInBatch = false): HolderState {
  // A ticket this device admitted counts as come in, unless the feed has taken back every entry it
  // told of since (an organizer's undo of this device's admission among them).
  const admittedHere = ctx.queue.admitted.has(tid) && ctx.knowledge.undone?.has(tid) !== true;
  let cameIn = ctx.knowledge.checkedIn.has(tid) || admittedHere;
  let out = ctx.feedOut?.has(tid) === true;
  const own = ctx.queue.moves.get(tid);
  if (own?.to === 'out') out = true;
  else if (own?.to === 'inside') [cameIn, out] = [true, false];
  else if (own?.to === 'unused') [cameIn, out] = [false, false];
  for (const item of ctx.queue.itemsOf(tid)) {
    if (isAnnul(item)) [cameIn, out] = [item.before !== 'unused', item.before === 'out'];
    else if (item.direction === 'out') out ||= item.verdict === 'exit';
    else if (item.verdict === 'admit') [cameIn, out] = [cameIn || item.admitted_offline, false];
  }
  if (admittedInBatch) [cameIn, out] = [true, false];
  if (!cameIn) return 'unused';
  return out ? 'out' : 'inside';
}
