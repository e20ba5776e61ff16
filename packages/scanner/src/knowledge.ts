import type { Change } from '@ticket-issuer/protocol';
import { type FeedPage, type FeedRecord, recordOf } from './knowledge-log.ts';
import { checkSnapshot, type StoredKnowledge } from './knowledge-snapshot.ts';

/** A ticket's own notes for the gate, as the feed's `ticket_notes` changes tell them. */
export interface TicketNotes {
  attention: boolean;
  checkin_text: string | null;
}

/** When and at which gate a ticket was checked in, as the changes feed told. */
export interface CheckInPlace {
  at: string;
  gate_id: string | null;
}

/** What the changes feed taught this device, and where to resume it. */
export class FeedKnowledge {
  cursor: string | null = null;
  /** When the feed was last pulled to its end. */
  lastSyncAt: string | null = null;
  /** When a sync last read the event's gates too, after the feed: null until the first complete sync. */
  rulesSyncedAt: string | null = null;
  readonly revoked = new Set<string>();
  readonly superseded = new Map<string, Set<string | null>>();
  readonly checkedIn = new Set<string>();
  /**
   * Tickets whose every entry the feed told was annulled since (an organizer's undo included): what
   * this device remembers of admitting them is taken back too, until the feed tells of a new entry.
   */
  readonly undone = new Set<string>();
  /** When and where the feed's check-ins happened, for the verdict screen. */
  readonly checkIns = new Map<string, CheckInPlace>();
  /** Tickets whose holder went out, as the feed tells (an entry after the exit takes them off). */
  readonly out = new Set<string>();
  /**
   * When each holder last went out, as the feed tells (only exits whose change said when), kept when
   * they come in again: the issuer keeps it too.
   */
  readonly outAt = new Map<string, string>();
  /** The `at` (the scan's time) of every entry the feed told, by tid: what the entry rules count. */
  readonly entries = new Map<string, string[]>();
  /** The idempotency key of each of those entries, in the same order (null: the feed named none). */
  readonly entryKeys = new Map<string, (string | null)[]>();
  /** Each ticket's own notes for the gate (only tickets that have some). */
  readonly notes = new Map<string, TicketNotes>();
  /**
   * Each ticket's entries (`i`) and exits (`o`) in feed order, annulled entries left out: where the
   * holder goes back to when an entry is annulled.
   */
  readonly moves = new Map<string, string>();

  /**
   * The pages of the feed applied by `advance` since the knowledge was last stored: what the next
   * store appends to the knowledge journal (see knowledge-store.ts).
   */
  readonly unsaved: FeedPage[] = [];

  /** Applies feed entries in feed order; an entry of an unknown type is skipped (a newer issuer). */
  apply(changes: readonly Change[]): void {
    for (const change of changes) {
      const record = recordOf(change);
      if (record !== null) this.applyRecord(record);
    }
  }

  /** Applies a page of the feed and moves the cursor past it, remembering the page until it is stored. */
  advance(changes: readonly Change[], cursor: string): void {
    const records = changes.map(recordOf).filter((record) => record !== null);
    if (records.length === 0 && cursor === this.cursor) return;
    for (const record of records) this.applyRecord(record);
    this.cursor = cursor;
    this.unsaved.push({ cursor, changes: records });
  }

  /** Applies a page as the knowledge journal kept it (the page was stored already). */
  replay(page: FeedPage): void {
    for (const record of page.changes) this.applyRecord(record);
    this.cursor = page.cursor;
  }

  /** One change, as its record says (see `FeedRecord`). */
  private applyRecord(record: FeedRecord): void {
    const tid = record[1];
    if (record[0] === 'r') this.revoked.add(tid);
    else if (record[0] === 'o') {
      this.out.add(tid);
      this.addMove(tid, 'o');
      const at = record[2];
      if (typeof at === 'string') this.outAt.set(tid, at);
      else this.outAt.delete(tid);
    } else if (record[0] === 'i') {
      const [, , at, gate_id, key] = record;
      this.checkedIn.add(tid);
      this.undone.delete(tid);
      // Presence follows scan time: an entry scanned before the holder's last exit (uploaded after it)
      // leaves them out, and takes its place before that exit among the moves.
      const outAt = this.outAt.get(tid);
      const behindExit = at !== null && this.out.has(tid) && outAt !== undefined && outAt > at;
      if (behindExit) {
        const moves = this.moves.get(tid) ?? '';
        const exit = moves.lastIndexOf('o');
        this.setMoves(tid, moves.slice(0, exit) + 'i' + moves.slice(exit));
      } else {
        this.out.delete(tid);
        this.addMove(tid, 'i');
      }
      if (at !== null) {
        const last = this.checkIns.get(tid);
        if (!behindExit || last === undefined || last.at < at) this.checkIns.set(tid, { at, gate_id });
        this.addEntry(tid, at, key);
      }
    } else if (record[0] === 's') this.supersede(tid, record[2]);
    else if (record[0] === 'n') this.setNotes(tid, record[2], record[3]);
    else this.annul(tid, record[2]);
  }

  /**
   * An entry annulled: exactly the entry the change names by its idempotency key (an issuer that names
   * none: the ticket's latest entry in feed order). It no longer counts, and the holder is back where
   * the remaining moves leave them: unused, out, or inside.
   */
  private annul(tid: string, key: string | null | undefined): void {
    const entries = this.entries.get(tid);
    const keys = this.entryKeys.get(tid);
    const named = key === undefined ? -1 : (keys?.lastIndexOf(key) ?? -1);
    const index = named >= 0 ? named : (entries?.length ?? 0) - 1;
    const moves = this.moves.get(tid) ?? '';
    const move = nthEntryMove(moves, index);
    if (move >= 0) this.setMoves(tid, moves.slice(0, move) + moves.slice(move + 1));
    if (entries !== undefined && index >= 0) {
      entries.splice(index, 1);
      keys?.splice(index, 1);
    }
    if (entries?.length === 0) {
      this.entries.delete(tid);
      this.entryKeys.delete(tid);
    }
    const rest = this.moves.get(tid) ?? '';
    if (!rest.includes('i')) {
      this.checkedIn.delete(tid);
      this.checkIns.delete(tid);
      this.undone.add(tid);
    } else {
      // The entry before it, where the feed said when (its gate is not kept).
      const at = this.entries.get(tid)?.at(-1);
      if (at !== undefined) this.checkIns.set(tid, { at, gate_id: null });
    }
    if (rest.endsWith('o')) this.out.add(tid);
    else this.out.delete(tid);
  }

  private addMove(tid: string, move: 'i' | 'o'): void {
    this.setMoves(tid, (this.moves.get(tid) ?? '') + move);
  }

  private setMoves(tid: string, moves: string): void {
    if (moves === '') this.moves.delete(tid);
    else this.moves.set(tid, moves);
  }

  /** Serializes for `knowledge.json`. */
  toJSON(): StoredKnowledge {
    const superseded: [string, string | null][] = [];
    for (const [tid, jtis] of this.superseded) for (const jti of jtis) superseded.push([tid, jti]);
    return {
      cursor: this.cursor,
      last_sync_at: this.lastSyncAt,
      rules_synced_at: this.rulesSyncedAt,
      revoked: [...this.revoked],
      superseded,
      checked_in: [...this.checkedIn],
      undone: [...this.undone],
      check_ins: [...this.checkIns].map(([tid, place]) => [tid, place.at, place.gate_id]),
      out: [...this.out],
      out_at: [...this.outAt],
      entries: [...this.entries],
      entry_keys: [...this.entryKeys],
      notes: [...this.notes].map(([tid, notes]) => [tid, notes.attention, notes.checkin_text]),
      moves: [...this.moves],
    };
  }

  /** Reads `knowledge.json`; null text is an empty knowledge; anything malformed is STATE_CORRUPT. */
  static parse(text: string | null, file: string): FeedKnowledge {
    return text === null ? new FeedKnowledge() : FeedKnowledge.from(checkSnapshot(text, file));
  }

  /** The knowledge a checked snapshot holds; one from an older file gets what it lacks from what it has. */
  static from(data: StoredKnowledge): FeedKnowledge {
    const knowledge = new FeedKnowledge();
    knowledge.cursor = data.cursor;
    knowledge.lastSyncAt = data.last_sync_at;
    knowledge.rulesSyncedAt = data.rules_synced_at ?? null;
    for (const tid of data.revoked) knowledge.revoked.add(tid);
    for (const tid of data.checked_in) knowledge.checkedIn.add(tid);
    for (const tid of data.undone ?? []) knowledge.undone.add(tid);
    for (const [tid, jti] of data.superseded) knowledge.supersede(tid, jti);
    for (const [tid, at, gate_id] of data.check_ins ?? []) knowledge.checkIns.set(tid, { at, gate_id });
    for (const tid of data.out ?? []) knowledge.out.add(tid);
    for (const [tid, at] of data.out_at ?? []) knowledge.outAt.set(tid, at);
    // A file from before entries were kept: each check-in it knows counts once.
    const keysOf = new Map(data.entry_keys ?? []);
    for (const [tid, ats] of data.entries ?? [...knowledge.checkIns].map(([tid, p]) => [tid, [p.at]] as const)) {
      ats.forEach((at, i) => knowledge.addEntry(tid, at, keysOf.get(tid)?.[i] ?? null));
    }
    for (const [tid, attention, text] of data.notes ?? []) knowledge.setNotes(tid, attention, text);
    // A file from before moves were kept: each entry it counts, then an exit for a holder who went out.
    const moves =
      data.moves ??
      [...new Set([...knowledge.checkedIn, ...knowledge.out])].map((tid): [string, string] => [
        tid,
        'i'.repeat(knowledge.checkedIn.has(tid) ? Math.max(1, knowledge.entries.get(tid)?.length ?? 0) : 0) +
          (knowledge.out.has(tid) ? 'o' : ''),
      ]);
    for (const [tid, list] of moves) knowledge.setMoves(tid, list);
    return knowledge;
  }

  private addEntry(tid: string, at: string, key: string | null): void {
    const known = this.entries.get(tid);
    if (known) known.push(at);
    else this.entries.set(tid, [at]);
    const keys = this.entryKeys.get(tid);
    if (keys) keys.push(key);
    else this.entryKeys.set(tid, [key]);
  }

  /** The latest notes of a ticket replace earlier ones; none at all are not kept. */
  private setNotes(tid: string, attention: unknown, text: unknown): void {
    const checkinText = typeof text === 'string' && text !== '' ? text : null;
    if (attention === true || checkinText !== null)
      this.notes.set(tid, { attention: attention === true, checkin_text: checkinText });
    else this.notes.delete(tid);
  }

  private supersede(tid: string, jti: string | null): void {
    let jtis = this.superseded.get(tid);
    if (!jtis) this.superseded.set(tid, (jtis = new Set()));
    jtis.add(jti);
  }
}

/** Where the `index`-th entry (`i`, from 0) stands in a ticket's moves; -1 when there is none. */
function nthEntryMove(moves: string, index: number): number {
  let seen = -1;
  for (let at = 0; at < moves.length; at++) if (moves[at] === 'i' && ++seen === index) return at;
  return index >= 0 ? moves.lastIndexOf('i') : -1;
}
