import type { Change } from '@ticket-issuer/protocol';
import { StateCorruptError } from './errors.ts';

/** The stored form of what the changes feed taught (`knowledge.json`). */
interface StoredKnowledge {
  cursor: string | null;
  last_sync_at: string | null;
  /** When a sync last read the gates after the feed (absent in files written before it existed). */
  rules_synced_at?: string | null;
  revoked: string[];
  /** `[tid, jti]` pairs; a null jti supersedes every token of that tid without a jti. */
  superseded: [string, string | null][];
  checked_in: string[];
  /** `[tid, checked_in_at, gate_id]` of the feed's check-ins (absent in files written before it existed). */
  check_ins?: [string, string, string | null][];
  /** Tickets whose holder went out (their last entry or exit in the feed was an exit). */
  out?: string[];
  /** `[tid, [at…]]`: the `at` of each of the feed's check-ins (absent in files written before it existed). */
  entries?: [string, string[]][];
  /** `[tid, [key…]]`: each of those check-ins' idempotency key, null where the feed named none. */
  entry_keys?: [string, (string | null)[]][];
  /** `[tid, attention, checkin_text]` of the feed's ticket notes (absent in files written before it existed). */
  notes?: [string, boolean, string | null][];
  /**
   * `[tid, moves]`: each ticket's entries (`i`) and exits (`o`) in feed order, less the annulled
   * entries (absent in files written before it existed: made from what they hold).
   */
  moves?: [string, string][];
}

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
  /** When and where the feed's check-ins happened, for the verdict screen. */
  readonly checkIns = new Map<string, CheckInPlace>();
  /** Tickets whose holder went out, as the feed tells (an entry after the exit takes them off). */
  readonly out = new Set<string>();
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

  /** Applies feed entries in feed order; an entry of an unknown type is skipped (a newer issuer). */
  apply(changes: readonly Change[]): void {
    for (const change of changes) {
      if (change.type === 'revoked') this.revoked.add(change.tid);
      else if (change.type === 'checked_out') {
        this.out.add(change.tid);
        this.addMove(change.tid, 'o');
      } else if (change.type === 'checked_in') {
        this.checkedIn.add(change.tid);
        this.out.delete(change.tid);
        this.addMove(change.tid, 'i');
        if (typeof change.at === 'string') {
          this.checkIns.set(change.tid, { at: change.at, gate_id: change.gate_id ?? null });
          this.addEntry(change.tid, change.at, change.idempotency_key ?? null);
        }
      } else if (change.type === 'token_superseded') this.supersede(change.tid, change.jti ?? null);
      else if (change.type === 'ticket_notes') this.setNotes(change.tid, change.attention, change.checkin_text);
      else if (change.type === 'annulled') this.annul(change.tid, change.idempotency_key);
    }
  }

  /**
   * An entry annulled: exactly the entry the change names by its idempotency key (an issuer that names
   * none: the ticket's latest entry in feed order). It no longer counts, and the holder is back where
   * the remaining moves leave them: unused, out, or inside.
   */
  private annul(tid: string, key: string | undefined): void {
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
      check_ins: [...this.checkIns].map(([tid, place]) => [tid, place.at, place.gate_id]),
      out: [...this.out],
      entries: [...this.entries],
      entry_keys: [...this.entryKeys],
      notes: [...this.notes].map(([tid, notes]) => [tid, notes.attention, notes.checkin_text]),
      moves: [...this.moves],
    };
  }

  /** Reads `knowledge.json`; null text is an empty knowledge; anything malformed is STATE_CORRUPT. */
  static parse(text: string | null, file: string): FeedKnowledge {
    const knowledge = new FeedKnowledge();
    if (text === null) return knowledge;
    const corrupt = (what: string) => new StateCorruptError(file, what);
    let data: Partial<StoredKnowledge>;
    try {
      data = JSON.parse(text) as Partial<StoredKnowledge>;
    } catch {
      throw corrupt('not JSON');
    }
    if (typeof data !== 'object' || data === null) throw corrupt('not an object');
    if (data.cursor !== null && typeof data.cursor !== 'string') throw corrupt('field cursor is malformed');
    if (data.last_sync_at !== null && typeof data.last_sync_at !== 'string')
      throw corrupt('field last_sync_at is malformed');
    const rulesSyncedAt = data.rules_synced_at ?? null;
    if (rulesSyncedAt !== null && typeof rulesSyncedAt !== 'string')
      throw corrupt('field rules_synced_at is malformed');
    const strings = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');
    if (!strings(data.revoked)) throw corrupt('field revoked is malformed');
    if (!strings(data.checked_in)) throw corrupt('field checked_in is malformed');
    const pairs = data.superseded;
    const isPair = (p: unknown) =>
      Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && (p[1] === null || typeof p[1] === 'string');
    if (!Array.isArray(pairs) || !pairs.every(isPair)) throw corrupt('field superseded is malformed');
    const isPlace = (p: unknown) =>
      Array.isArray(p) &&
      p.length === 3 &&
      typeof p[0] === 'string' &&
      typeof p[1] === 'string' &&
      (p[2] === null || typeof p[2] === 'string');
    if (data.check_ins !== undefined && !(Array.isArray(data.check_ins) && data.check_ins.every(isPlace))) {
      throw corrupt('field check_ins is malformed');
    }
    knowledge.cursor = data.cursor;
    knowledge.lastSyncAt = data.last_sync_at;
    knowledge.rulesSyncedAt = rulesSyncedAt;
    for (const tid of data.revoked!) knowledge.revoked.add(tid);
    for (const tid of data.checked_in!) knowledge.checkedIn.add(tid);
    for (const [tid, jti] of pairs) knowledge.supersede(tid, jti);
    for (const [tid, at, gate_id] of data.check_ins ?? []) knowledge.checkIns.set(tid, { at, gate_id });
    if (data.out !== undefined && !strings(data.out)) throw corrupt('field out is malformed');
    for (const tid of data.out ?? []) knowledge.out.add(tid);
    const isEntries = (e: unknown) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && strings(e[1]);
    if (data.entries !== undefined && !(Array.isArray(data.entries) && data.entries.every(isEntries))) {
      throw corrupt('field entries is malformed');
    }
    // A file from before entries were kept: each check-in it knows counts once.
    const isKeys = (e: unknown) =>
      Array.isArray(e) &&
      e.length === 2 &&
      typeof e[0] === 'string' &&
      Array.isArray(e[1]) &&
      e[1].every((k: unknown) => k === null || typeof k === 'string');
    if (data.entry_keys !== undefined && !(Array.isArray(data.entry_keys) && data.entry_keys.every(isKeys))) {
      throw corrupt('field entry_keys is malformed');
    }
    const keysOf = new Map(data.entry_keys ?? []);
    for (const [tid, ats] of data.entries ?? [...knowledge.checkIns].map(([tid, p]) => [tid, [p.at]] as const)) {
      ats.forEach((at, i) => knowledge.addEntry(tid, at, keysOf.get(tid)?.[i] ?? null));
    }
    const isNotes = (n: unknown) =>
      Array.isArray(n) &&
      n.length === 3 &&
      typeof n[0] === 'string' &&
      typeof n[1] === 'boolean' &&
      (n[2] === null || typeof n[2] === 'string');
    if (data.notes !== undefined && !(Array.isArray(data.notes) && data.notes.every(isNotes))) {
      throw corrupt('field notes is malformed');
    }
    for (const [tid, attention, text] of data.notes ?? []) knowledge.setNotes(tid, attention, text);
    const isMoves = (m: unknown) =>
      Array.isArray(m) &&
      m.length === 2 &&
      typeof m[0] === 'string' &&
      typeof m[1] === 'string' &&
      /^[io]*$/.test(m[1]);
    if (data.moves !== undefined && !(Array.isArray(data.moves) && data.moves.every(isMoves))) {
      throw corrupt('field moves is malformed');
    }
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

  private addEntry(tid: string, at: string, key: string | null = null): void {
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
