/**
 * What the scan queue's journal folds into: the pending scans and annuls, the tickets this device
 * admitted, its moves, entries and annuls the issuer answered (until the changes feed has them), and
 * its recent admissions; and the lines that rewrite the journal with just that.
 */
import type { HolderState } from '@ticket-issuer/protocol';
import {
  ADMITTED_PER_LINE,
  type Admitted,
  type Annulled,
  type Entered,
  type HolderMove,
  type JournalEntry,
  type Move,
} from './journal.ts';
import { PendingItems } from './pending-items.ts';
import { annulQueueKey, isAnnul, queueKeyOf } from './queued-annul.ts';
import type { QueuedScan } from './queued-scan.ts';

/** An admission this device made, kept for an annul (see `Admitted`). */
export interface Admission {
  key: string;
  tid: string;
  /** The scan's `scanned_at`. */
  at: string;
  /** Where the holder was before it. */
  before: HolderState;
  /** Undone: queued to be annulled, or annulled by the issuer. */
  annulled: boolean;
}

/** The admission line of an entry scan. */
export const admittedOf = (scan: QueuedScan): Admitted => [
  scan.idempotency_key,
  scan.tid,
  scan.scanned_at,
  scan.before ?? 'unused',
  false,
];

/** Lines of one op, `ADMITTED_PER_LINE` items each. */
function chunked<T>(list: readonly T[], line: (part: T[]) => JournalEntry): string[] {
  const lines: string[] = [];
  for (let i = 0; i < list.length; i += ADMITTED_PER_LINE) {
    lines.push(JSON.stringify(line(list.slice(i, i + ADMITTED_PER_LINE))));
  }
  return lines;
}

/** The journal folded, line by line. */
export class JournalState {
  /** Pending scans and annuls by `queueKeyOf`, in the order recorded, and by ticket. */
  readonly scans = new PendingItems();
  readonly admittedTids = new Set<string>();
  /**
   * Holders this device let in or out (or made unused again, by an annul) on the issuer's answer, by
   * tid, last move only, until the changes feed the device holds reports them (the feed then knows
   * them, and what came after).
   */
  readonly ownMoves = new Map<string, { to: HolderMove; n: number }>();
  /**
   * The entries the issuer counted on this device's scans (their `scanned_at`), by tid, until the
   * changes feed the device holds reports them: what the entry rules count besides the feed's.
   */
  readonly ownEntries = new Map<string, { at: string; n: number }[]>();
  /** This device's admissions by idempotency key, oldest first (recent ones: see `lines`). */
  readonly admissions = new Map<string, Admission>();
  /**
   * The entries of this device the issuer annulled, by tid, until the changes feed the device holds
   * reports them: entries the entry rules no longer count, whatever the feed said before.
   */
  readonly ownAnnulled = new Map<string, { key: string; at: string | null; n: number }[]>();
  lastMoveNumber = 0;

  /** This device's last admission (annulled or not), or undefined. */
  get lastAdmission(): Admission | undefined {
    let last: Admission | undefined;
    for (const admission of this.admissions.values()) last = admission;
    return last;
  }

  /** How many lines a rewrite keeps besides the pending items. */
  get keptLines(): number {
    const count = (lists: Iterable<readonly unknown[]>) => [...lists].reduce((sum, list) => sum + list.length, 0);
    return [
      this.admittedTids.size,
      this.ownMoves.size,
      count(this.ownEntries.values()),
      count(this.ownAnnulled.values()),
      this.admissions.size,
    ].reduce((sum, n) => sum + Math.ceil(n / ADMITTED_PER_LINE), 0);
  }

  /**
   * The lines of a journal that folds into this state. With `now`, the admissions kept are only those
   * an annul may still name (scanned within `keepAdmissionsS` before it, or still queued) and the last.
   */
  lines(now: Date | undefined, keepAdmissionsS: number): string[] {
    const last = this.lastAdmission;
    const recent = (a: Admission) =>
      now === undefined ||
      a === last ||
      this.scans.has(a.key) ||
      now.getTime() - Date.parse(a.at) <= keepAdmissionsS * 1000;
    for (const [key, admission] of this.admissions) if (!recent(admission)) this.admissions.delete(key);
    const admits = [...this.admissions.values()].map((a): Admitted => [a.key, a.tid, a.at, a.before, a.annulled]);
    return [
      // Moves before the admitted tickets: a move to `unused` takes its ticket off that list when read.
      ...chunked(
        [...this.ownMoves].map(([tid, move]): Move => [tid, move.to, move.n]),
        (moves) => ({ op: 'moved', moves }),
      ),
      ...chunked([...this.admittedTids], (tids) => ({ op: 'admitted', tids })),
      ...chunked(
        [...this.ownEntries].flatMap(([tid, list]) => list.map((e): Entered => [tid, e.at, e.n])),
        (entries) => ({ op: 'entered', entries }),
      ),
      ...chunked(admits, (part) => ({ op: 'admits', admits: part })),
      ...chunked(
        [...this.ownAnnulled].flatMap(([tid, list]) => list.map((e): Annulled => [e.key, tid, e.at, e.n])),
        (entries) => ({ op: 'annulled', entries }),
      ),
      ...[...this.scans.values()].map((item) =>
        JSON.stringify(isAnnul(item) ? { op: 'annul', annul: item } : { op: 'scan', scan: item }),
      ),
    ];
  }

  clear(): void {
    this.scans.clear();
    this.admittedTids.clear();
    this.ownMoves.clear();
    this.ownEntries.clear();
    this.admissions.clear();
    this.ownAnnulled.clear();
    this.lastMoveNumber = 0;
  }

  fold(entry: JournalEntry): void {
    if (entry.op === 'scan') {
      this.scans.set(queueKeyOf(entry.scan), entry.scan);
      // An admission made on the device's own verdict is one of its admits from the start.
      if (entry.scan.admitted_offline) this.admit(admittedOf(entry.scan));
    } else if (entry.op === 'done') for (const key of entry.keys) this.scans.delete(key);
    else if (entry.op === 'admitted') for (const tid of entry.tids) this.admittedTids.add(tid);
    else if (entry.op === 'moved') {
      for (const [tid, to, n] of entry.moves) {
        // Deleted first: the map keeps the order of the last moves.
        this.ownMoves.delete(tid);
        this.ownMoves.set(tid, { to, n });
        // Unused again (its only entry annulled): no longer a ticket this device let in.
        if (to === 'unused') this.admittedTids.delete(tid);
        this.lastMoveNumber = Math.max(this.lastMoveNumber, n);
      }
    } else if (entry.op === 'admits') {
      for (const admitted of entry.admits) this.admit(admitted);
    } else if (entry.op === 'annul') {
      this.scans.set(annulQueueKey(entry.annul.idempotency_key), entry.annul);
      this.markAnnulled(entry.annul.idempotency_key, true);
    } else if (entry.op === 'annulled') {
      for (const [key, tid, at, n] of entry.entries) {
        this.markAnnulled(key, true);
        const list = this.ownAnnulled.get(tid);
        if (list) list.push({ key, at, n });
        else this.ownAnnulled.set(tid, [{ key, at, n }]);
        this.lastMoveNumber = Math.max(this.lastMoveNumber, n);
      }
    } else if (entry.op === 'annul_refused') {
      for (const key of entry.keys) this.markAnnulled(key, false);
    } else if (entry.op === 'entered') {
      for (const [tid, at, n] of entry.entries) {
        const list = this.ownEntries.get(tid);
        if (list) list.push({ at, n });
        else this.ownEntries.set(tid, [{ at, n }]);
        this.lastMoveNumber = Math.max(this.lastMoveNumber, n);
      }
    } else if (entry.op === 'moves_in_feed') {
      for (const [tid, move] of this.ownMoves) if (move.n <= entry.up_to) this.ownMoves.delete(tid);
      for (const lists of [this.ownEntries, this.ownAnnulled] as Map<string, { n: number }[]>[]) {
        for (const [tid, list] of lists) {
          const later = list.filter((e) => e.n > entry.up_to);
          if (later.length > 0) lists.set(tid, later);
          else lists.delete(tid);
        }
      }
    } else {
      const scan = this.scans.get(entry.key);
      if (scan && !isAnnul(scan)) {
        if (entry.admitted_offline) this.admit(admittedOf(scan));
        scan.admitted_offline = entry.admitted_offline;
        scan.maybe_sent_plain = entry.maybe_sent_plain;
        // Journals from before `turned_away`: an online scan marked offline showed its own verdict.
        scan.turned_away = entry.turned_away ?? (!entry.admitted_offline && scan.verdict === 'reject');
      }
    }
  }

  /** Keeps an admission; one already kept keeps its place and whether it was undone. */
  private admit([key, tid, at, before, annulled]: Admitted): void {
    this.admissions.set(key, {
      key,
      tid,
      at,
      before,
      annulled: annulled || this.admissions.get(key)?.annulled === true,
    });
  }

  private markAnnulled(key: string, annulled: boolean): void {
    const admission = this.admissions.get(key);
    if (admission) admission.annulled = annulled;
  }
}
