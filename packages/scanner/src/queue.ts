import {
  ADMITTED_PER_LINE,
  type Entered,
  type HolderMove,
  type JournalEntry,
  type Move,
  parseEntry,
} from './journal.ts';
import type { QueuedScan } from './queued-scan.ts';
import type { Storage } from './storage/storage.ts';

export type { HolderMove } from './journal.ts';
export { checkInBody, deviceReport, type DeviceReport, type QueuedScan } from './queued-scan.ts';

/**
 * The durable queue of scans: an append-only journal folded into the pending scans (in scan order)
 * and the tickets this device admitted. Every write is durable before its promise resolves.
 */
export class ScanQueue {
  private readonly scans = new Map<string, QueuedScan>();
  private readonly admittedTids = new Set<string>();
  /**
   * Holders this device let in or out on the issuer's answer, by tid, last move only, until the
   * changes feed the device holds reports them (the feed then knows them, and what came after).
   */
  private readonly ownMoves = new Map<string, { to: HolderMove; n: number }>();
  /**
   * The entries the issuer counted on this device's scans (their `scanned_at`), by tid, until the
   * changes feed the device holds reports them: what the entry rules count besides the feed's.
   */
  private readonly ownEntries = new Map<string, { at: string; n: number }[]>();
  private lastMoveNumber = 0;
  private journalLines = 0;
  /** Appends under way; they may overlap one another (each is durable on its own). */
  private readonly appending = new Set<Promise<unknown>>();
  /**
   * The last rewrite of the whole journal (compaction, reset). A rewrite waits for the appends begun
   * before it and appends begun meanwhile wait for it, so a scan recorded while a sync compacts is
   * never left out of the rewritten journal.
   */
  private rewriting: Promise<unknown> = Promise.resolve();

  private constructor(private readonly storage: Storage) {}

  /** Runs `work` alone: after every append and rewrite begun before it, before any begun after it. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const before = this.rewriting;
    const run = (async () => {
      await before.catch(() => undefined);
      await Promise.allSettled([...this.appending]);
      return work();
    })();
    this.rewriting = run;
    return run;
  }

  /** Reads the journal: a torn last line is ignored by the storage, a corrupt complete line is STATE_CORRUPT. */
  static async open(storage: Storage): Promise<ScanQueue> {
    const queue = new ScanQueue(storage);
    const lines = await storage.readJournal();
    lines.forEach((line, index) => {
      if (line.trim() !== '') queue.fold(parseEntry(line, index + 1));
    });
    queue.journalLines = lines.length;
    return queue;
  }

  /** How many scans wait for the issuer. */
  get size(): number {
    return this.scans.size;
  }

  /** The pending scans, oldest first. */
  pending(): QueuedScan[] {
    return [...this.scans.values()];
  }

  /** The tickets this device admitted (kept across compaction). */
  get admitted(): ReadonlySet<string> {
    return this.admittedTids;
  }

  /** The holders this device let in or out on the issuer's answer, oldest move first, not yet in the feed. */
  get moves(): ReadonlyMap<string, { readonly to: HolderMove; readonly n: number }> {
    return this.ownMoves;
  }

  /** The entries the issuer counted on this device's scans, by tid, not yet in the feed. */
  get entries(): ReadonlyMap<string, readonly { readonly at: string; readonly n: number }[]> {
    return this.ownEntries;
  }

  /** The number of the last move recorded (0: none yet). */
  get lastMove(): number {
    return this.lastMoveNumber;
  }

  /** The changes feed now holds every move up to `upTo` (pulled after they were answered). */
  async movesInFeed(upTo: number): Promise<void> {
    const entered = [...this.ownEntries.values()].some((list) => list.some((entry) => entry.n <= upTo));
    if (!entered && ![...this.ownMoves.values()].some((move) => move.n <= upTo)) return;
    await this.write([{ op: 'moves_in_feed', up_to: upTo }]);
  }

  /** Records new scans, and the tickets admitted with them, in one durable write. */
  async record(scans: readonly QueuedScan[], admitted: readonly string[] = []): Promise<void> {
    const entries: JournalEntry[] = scans.map((scan) => ({ op: 'scan', scan }));
    if (admitted.length > 0) entries.push({ op: 'admitted', tids: [...admitted] });
    await this.write(entries);
  }

  /** Turns an online scan that got no answer into a queued offline verdict (or a turned-away scan). */
  async markOffline(
    key: string,
    change: { admitted_offline: boolean; maybe_sent_plain: boolean; turned_away: boolean },
  ): Promise<void> {
    const scan = this.scans.get(key);
    const entries: JournalEntry[] = [{ op: 'offline', key, ...change }];
    if (scan && change.admitted_offline) entries.push({ op: 'admitted', tids: [scan.tid] });
    await this.write(entries);
  }

  /**
   * Acknowledges scans the issuer answered (or refused for good), in one durable write, with the
   * holders its answers let in (`admitted`) or out (`out`), and the entries its answers counted
   * (`entries`, each with its scan's `scanned_at`).
   */
  async ack(
    keys: readonly string[],
    admitted: readonly string[] = [],
    out: readonly string[] = [],
    entries: readonly { tid: string; at: string }[] = [],
  ): Promise<void> {
    const lines: JournalEntry[] = [];
    if (keys.length > 0) lines.push({ op: 'done', keys: [...keys] });
    if (admitted.length > 0) lines.push({ op: 'admitted', tids: [...admitted] });
    // Numbered now, after the issuer answered: a feed pulled from here on holds every move numbered so far.
    const moves: Move[] = [
      ...admitted.map((tid): Move => [tid, 'inside', ++this.lastMoveNumber]),
      ...out.map((tid): Move => [tid, 'out', ++this.lastMoveNumber]),
    ];
    if (moves.length > 0) lines.push({ op: 'moved', moves });
    const entered = entries.map(({ tid, at }): Entered => [tid, at, ++this.lastMoveNumber]);
    if (entered.length > 0) lines.push({ op: 'entered', entries: entered });
    await this.write(lines);
  }

  /** Whether the journal holds enough answered scans to be worth rewriting. */
  get compactable(): boolean {
    const kept =
      Math.ceil(this.admittedTids.size / ADMITTED_PER_LINE) +
      Math.ceil(this.ownMoves.size / ADMITTED_PER_LINE) +
      Math.ceil([...this.ownEntries.values()].reduce((sum, list) => sum + list.length, 0) / ADMITTED_PER_LINE);
    return this.journalLines > this.scans.size + kept + 64;
  }

  /** Rewrites the journal atomically with only the pending scans and the admitted tickets. */
  compact(): Promise<void> {
    return this.exclusive(() => this.rewrite());
  }

  private async rewrite(): Promise<void> {
    const tids = [...this.admittedTids];
    const lines: string[] = [];
    for (let i = 0; i < tids.length; i += ADMITTED_PER_LINE) {
      lines.push(JSON.stringify({ op: 'admitted', tids: tids.slice(i, i + ADMITTED_PER_LINE) }));
    }
    const moves = [...this.ownMoves].map(([tid, move]): Move => [tid, move.to, move.n]);
    for (let i = 0; i < moves.length; i += ADMITTED_PER_LINE) {
      lines.push(JSON.stringify({ op: 'moved', moves: moves.slice(i, i + ADMITTED_PER_LINE) }));
    }
    const entered = [...this.ownEntries].flatMap(([tid, list]) => list.map((e): Entered => [tid, e.at, e.n]));
    for (let i = 0; i < entered.length; i += ADMITTED_PER_LINE) {
      lines.push(JSON.stringify({ op: 'entered', entries: entered.slice(i, i + ADMITTED_PER_LINE) }));
    }
    for (const scan of this.scans.values()) lines.push(JSON.stringify({ op: 'scan', scan }));
    await this.storage.replaceJournal(lines);
    this.journalLines = lines.length;
  }

  /** Empties the queue and forgets admitted tickets (a device enrolled afresh). */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      await this.storage.replaceJournal([]);
      this.scans.clear();
      this.admittedTids.clear();
      this.ownMoves.clear();
      this.ownEntries.clear();
      this.lastMoveNumber = 0;
      this.journalLines = 0;
    });
  }

  private async write(entries: JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    let rewrite = this.rewriting;
    for (;;) {
      await rewrite.catch(() => undefined);
      if (rewrite === this.rewriting) break;
      rewrite = this.rewriting;
    }
    // Folded as part of the append: a rewrite that waited for it sees its entries.
    const append = this.storage.appendJournal(entries.map((entry) => JSON.stringify(entry))).then(() => {
      for (const entry of entries) this.fold(entry);
      this.journalLines += entries.length;
    });
    this.appending.add(append);
    try {
      await append;
    } finally {
      this.appending.delete(append);
    }
  }

  private fold(entry: JournalEntry): void {
    if (entry.op === 'scan') this.scans.set(entry.scan.idempotency_key, entry.scan);
    else if (entry.op === 'done') for (const key of entry.keys) this.scans.delete(key);
    else if (entry.op === 'admitted') for (const tid of entry.tids) this.admittedTids.add(tid);
    else if (entry.op === 'moved') {
      for (const [tid, to, n] of entry.moves) {
        // Deleted first: the map keeps the order of the last moves.
        this.ownMoves.delete(tid);
        this.ownMoves.set(tid, { to, n });
        this.lastMoveNumber = Math.max(this.lastMoveNumber, n);
      }
    } else if (entry.op === 'entered') {
      for (const [tid, at, n] of entry.entries) {
        const list = this.ownEntries.get(tid);
        if (list) list.push({ at, n });
        else this.ownEntries.set(tid, [{ at, n }]);
        this.lastMoveNumber = Math.max(this.lastMoveNumber, n);
      }
    } else if (entry.op === 'moves_in_feed') {
      for (const [tid, move] of this.ownMoves) if (move.n <= entry.up_to) this.ownMoves.delete(tid);
      for (const [tid, list] of this.ownEntries) {
        const later = list.filter((e) => e.n > entry.up_to);
        if (later.length > 0) this.ownEntries.set(tid, later);
        else this.ownEntries.delete(tid);
      }
    } else {
      const scan = this.scans.get(entry.key);
      if (scan) {
        scan.admitted_offline = entry.admitted_offline;
        scan.maybe_sent_plain = entry.maybe_sent_plain;
        // Journals from before `turned_away`: an online scan marked offline showed its own verdict.
        scan.turned_away = entry.turned_away ?? (!entry.admitted_offline && scan.verdict === 'reject');
      }
    }
  }
}
