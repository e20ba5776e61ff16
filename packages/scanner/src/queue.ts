import { type Admission, admittedOf, JournalState } from './journal-state.ts';
import { type Annulled, type Entered, type HolderMove, type JournalEntry, type Move, parseEntry } from './journal.ts';
import { annulQueueKey, isAnnul, type QueuedAnnul, type QueuedItem } from './queued-annul.ts';
import type { QueuedScan } from './queued-scan.ts';
import type { Storage } from './storage/storage.ts';

export type { HolderMove } from './journal.ts';
export { checkInBody, deviceReport, type DeviceReport, type QueuedScan } from './queued-scan.ts';
export { isAnnul, type QueuedAnnul, type QueuedItem } from './queued-annul.ts';
export type { Admission } from './journal-state.ts';

/** What an acknowledgement writes besides the answered keys, the holders' moves and the entries counted. */
export interface AckDetails {
  /** Holders the answers made unused again (an annul of the ticket's only entry). */
  unused?: readonly string[];
  /** Entry scans the issuer answered `valid`: this device's admissions. */
  admits?: readonly QueuedScan[];
  /** Entries of this device the issuer annulled (`at`: the entry's scan time, null when not known here). */
  annulled?: readonly { key: string; tid: string; at: string | null }[];
  /** Entries whose annul the issuer refused: they count again. */
  annulRefused?: readonly string[];
}

/**
 * The durable queue of scans: an append-only journal folded into the pending scans and annuls (in the
 * order they were made), the tickets this device admitted and its recent admissions. Every write is
 * durable before its promise resolves.
 */
export class ScanQueue {
  private readonly state = new JournalState();
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
      if (line.trim() !== '') queue.state.fold(parseEntry(line, index + 1));
    });
    queue.journalLines = lines.length;
    return queue;
  }

  /** How many scans and annuls wait for the issuer. */
  get size(): number {
    return this.state.scans.size;
  }

  /** The pending scans, oldest first (without the annuls: see `items`). */
  pending(): QueuedScan[] {
    return [...this.state.scans.values()].filter((item): item is QueuedScan => !isAnnul(item));
  }

  /** The pending scans and annuls, in the order they were made. */
  items(): QueuedItem[] {
    return [...this.state.scans.values()];
  }

  /**
   * A ticket's pending scans and annuls, in the order they were made, from an index kept by ticket:
   * what one scan needs, at the cost of that ticket's items. The list stays as it was given while
   * the queue changes.
   */
  itemsOf(tid: string): readonly QueuedItem[] {
    return this.state.scans.ofTicket(tid);
  }

  /** This device's admission under this idempotency key, when it still knows it. */
  admission(key: string): Readonly<Admission> | undefined {
    return this.state.admissions.get(key);
  }

  /** Whether this device's admission under this key was undone (an annul queued, or answered). */
  isAnnulled(key: string): boolean {
    return this.state.admissions.get(key)?.annulled === true;
  }

  /** Whether an annul of the entry under this key waits in the queue. */
  annulQueued(key: string): boolean {
    return this.state.scans.has(annulQueueKey(key));
  }

  /** This device's last admission (annulled or not), or undefined. */
  get lastAdmission(): Readonly<Admission> | undefined {
    return this.state.lastAdmission;
  }

  /** The entries of this device the issuer annulled, by tid, not yet in the feed. */
  get annulled(): ReadonlyMap<
    string,
    readonly { readonly key: string; readonly at: string | null; readonly n: number }[]
  > {
    return this.state.ownAnnulled;
  }

  /** The tickets this device admitted (kept across compaction). */
  get admitted(): ReadonlySet<string> {
    return this.state.admittedTids;
  }

  /** The holders this device let in or out on the issuer's answer, oldest move first, not yet in the feed. */
  get moves(): ReadonlyMap<string, { readonly to: HolderMove; readonly n: number }> {
    return this.state.ownMoves;
  }

  /** The entries the issuer counted on this device's scans, by tid, not yet in the feed. */
  get entries(): ReadonlyMap<string, readonly { readonly at: string; readonly n: number }[]> {
    return this.state.ownEntries;
  }

  /** The number of the last move recorded (0: none yet). */
  get lastMove(): number {
    return this.state.lastMoveNumber;
  }

  /** The changes feed now holds every move up to `upTo` (pulled after they were answered). */
  async movesInFeed(upTo: number): Promise<void> {
    const numbered = [...this.state.ownEntries.values(), ...this.state.ownAnnulled.values()];
    const entered = numbered.some((list) => list.some((entry) => entry.n <= upTo));
    if (!entered && ![...this.state.ownMoves.values()].some((move) => move.n <= upTo)) return;
    await this.write([{ op: 'moves_in_feed', up_to: upTo }]);
  }

  /** Records new scans, and the tickets admitted with them, in one durable write. */
  async record(scans: readonly QueuedScan[], admitted: readonly string[] = []): Promise<void> {
    const entries: JournalEntry[] = scans.map((scan) => ({ op: 'scan', scan }));
    if (admitted.length > 0) entries.push({ op: 'admitted', tids: [...admitted] });
    await this.write(entries);
  }

  /** Queues an annul after the scans recorded so far: its entry no longer counts on this device. */
  async queueAnnul(annul: QueuedAnnul): Promise<void> {
    await this.write([{ op: 'annul', annul }]);
  }

  /** Turns an online scan that got no answer into a queued offline verdict (or a turned-away scan). */
  async markOffline(
    key: string,
    change: { admitted_offline: boolean; maybe_sent_plain: boolean; turned_away: boolean },
  ): Promise<void> {
    const scan = this.state.scans.get(key);
    const entries: JournalEntry[] = [{ op: 'offline', key, ...change }];
    if (scan && change.admitted_offline) entries.push({ op: 'admitted', tids: [scan.tid] });
    await this.write(entries);
  }

  /**
   * Acknowledges scans and annuls the issuer answered (or refused for good), by `queueKeyOf`, in one
   * durable write, with the holders its answers let in (`admitted`) or out (`out`), the entries its
   * answers counted (`entries`, each with its scan's `scanned_at`), and `details`.
   */
  async ack(
    keys: readonly string[],
    admitted: readonly string[] = [],
    out: readonly string[] = [],
    entries: readonly { tid: string; at: string }[] = [],
    details: AckDetails = {},
  ): Promise<void> {
    const { unused = [], admits = [], annulled = [], annulRefused = [] } = details;
    const lines: JournalEntry[] = [];
    if (keys.length > 0) lines.push({ op: 'done', keys: [...keys] });
    if (admitted.length > 0) lines.push({ op: 'admitted', tids: [...admitted] });
    // Numbered now, after the issuer answered: a feed pulled from here on holds every move numbered so far.
    const moves: Move[] = [
      ...admitted.map((tid): Move => [tid, 'inside', ++this.state.lastMoveNumber]),
      ...out.map((tid): Move => [tid, 'out', ++this.state.lastMoveNumber]),
      ...unused.map((tid): Move => [tid, 'unused', ++this.state.lastMoveNumber]),
    ];
    if (moves.length > 0) lines.push({ op: 'moved', moves });
    const entered = entries.map(({ tid, at }): Entered => [tid, at, ++this.state.lastMoveNumber]);
    if (entered.length > 0) lines.push({ op: 'entered', entries: entered });
    if (admits.length > 0) lines.push({ op: 'admits', admits: admits.map(admittedOf) });
    const undone = annulled.map(({ key, tid, at }): Annulled => [key, tid, at, ++this.state.lastMoveNumber]);
    if (undone.length > 0) lines.push({ op: 'annulled', entries: undone });
    if (annulRefused.length > 0) lines.push({ op: 'annul_refused', keys: [...annulRefused] });
    await this.write(lines);
  }

  /** Whether the journal holds enough answered scans to be worth rewriting. */
  get compactable(): boolean {
    return this.journalLines > this.state.scans.size + this.state.keptLines + 64;
  }

  /**
   * Rewrites the journal atomically with only the pending scans and annuls, the admitted tickets, the
   * moves, entries and annuls not yet in the feed, and the admissions: with `now`, only those an annul
   * may still name (scanned within `keepAdmissionsS` before it, or still queued) and the last one.
   */
  compact(now?: Date, keepAdmissionsS = Infinity): Promise<void> {
    return this.exclusive(() => this.rewrite(now, keepAdmissionsS));
  }

  private async rewrite(now: Date | undefined, keepAdmissionsS: number): Promise<void> {
    const lines = this.state.lines(now, keepAdmissionsS);
    await this.storage.replaceJournal(lines);
    this.journalLines = lines.length;
  }

  /** Empties the queue and forgets admitted tickets (a device enrolled afresh). */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      await this.storage.replaceJournal([]);
      this.state.clear();
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
      for (const entry of entries) this.state.fold(entry);
      this.journalLines += entries.length;
    });
    this.appending.add(append);
    try {
      await append;
    } finally {
      this.appending.delete(append);
    }
  }
}
