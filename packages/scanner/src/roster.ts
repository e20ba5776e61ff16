/**
 * The offline roster as the device holds it: for a key with `allow_search`, every ticket's name, type,
 * order, own notes and short code (`GET …/roster`); for a key without it, only each short code's
 * digest (`GET …/codes`). Find by name, a ticket's group and a typed short code are answered from it
 * when the issuer cannot be. The latest line of a tid holds; a revoked ticket is kept, marked.
 */
import { normalShortCode, searchKey, searchWords, shortCodeDigest } from '@ticket-issuer/protocol';

/** A ticket as the roster route tells it. */
export interface RosterLine {
  tid: string;
  holder_name: string;
  ticket_type: string;
  order_ref: string | null;
  attention: boolean;
  checkin_text: string | null;
  /** `XXXXX-XXXXX`. */
  short_code: string;
  revoked: boolean;
}

/** A short code's digest, its ticket and the ticket's type, as the codes route tells them. */
export interface CodeLine {
  digest: string;
  tid: string;
  /** Absent from an issuer older than the field, or a line kept before it: the device does not guess it. */
  ticket_type?: string;
}

/** A typed code resolved on the device: its ticket, the roster's line if held, the type if known. */
export interface ResolvedCode {
  tid: string;
  line: RosterLine | null;
  ticket_type: string | null;
}

/** What the device holds: names (`roster`), digests only (`codes`), or nothing yet. */
export type RosterKind = 'roster' | 'codes' | null;

/** The most holders one search answers, as the issuer's. */
export const MAX_FOUND = 10;

/** A name's search keys, worked out once per name (the issuer keeps them in columns). */
interface NameKeys {
  name: string;
  key: string;
  words: string;
}

export class Roster {
  kind: RosterKind = null;
  /** Where the next sync resumes (`next_cursor` of the last page kept). */
  cursor: string | null = null;
  /** The key (`api_key_id`) the issuer refused the roster to: its digests are synced instead. */
  refusedKey: string | null = null;
  readonly tickets = new Map<string, RosterLine>();
  /** A code's kept form (no dash) → its tid, from the roster's lines. */
  private readonly codes = new Map<string, string>();
  /** A code's digest → its line (tid and type), from the codes route. */
  readonly digests = new Map<string, CodeLine>();
  /** Digests held without a type (see `untyped`). */
  private untypedCount = 0;
  /**
   * The codes were read again from the start because lines without a type were held: done once, so
   * an issuer that sends no type is not read whole at every sync.
   */
  reread = false;
  private readonly keys = new Map<string, NameKeys>();

  /** Forgets every line, and the cursor (the refusal too unless `keepRefusal`). */
  clear(keepRefusal = false): void {
    this.kind = null;
    this.cursor = null;
    if (!keepRefusal) {
      this.refusedKey = null;
      this.reread = false;
    }
    this.tickets.clear();
    this.codes.clear();
    this.digests.clear();
    this.untypedCount = 0;
    this.keys.clear();
  }

  /** Applies roster lines, in order: the latest of a tid holds. */
  applyTickets(lines: readonly RosterLine[]): void {
    this.kind = 'roster';
    for (const line of lines) {
      const before = this.tickets.get(line.tid);
      if (before) this.codes.delete(normalShortCode(before.short_code) ?? '');
      this.tickets.set(line.tid, line);
      const code = normalShortCode(line.short_code);
      if (code !== null) this.codes.set(code, line.tid);
    }
  }

  /** Applies digest lines, in order: a ticket's newer digest replaces its older one. */
  applyCodes(lines: readonly CodeLine[]): void {
    this.kind = 'codes';
    for (const line of lines) {
      const before = this.digests.get(line.digest);
      if (before && typeof before.ticket_type !== 'string') this.untypedCount -= 1;
      if (typeof line.ticket_type !== 'string') this.untypedCount += 1;
      this.digests.set(line.digest, line);
    }
  }

  /** How many digests are held without their ticket's type (kept from an issuer that did not send it). */
  get untyped(): number {
    return this.untypedCount;
  }

  /** How many tickets (or digests) are held. */
  get size(): number {
    return this.kind === 'codes' ? this.digests.size : this.tickets.size;
  }

  /**
   * The ticket a typed short code names, by the roster's codes or the digests; null for text that
   * cannot be a code, or a code the device does not hold.
   */
  async resolve(typed: string): Promise<ResolvedCode | null> {
    const code = normalShortCode(typed);
    if (code === null) return null;
    const tid = this.codes.get(code);
    if (tid !== undefined) {
      const line = this.tickets.get(tid)!;
      return { tid, line, ticket_type: line.ticket_type };
    }
    if (this.digests.size === 0) return null;
    const digested = this.digests.get(await shortCodeDigest(code));
    if (digested === undefined) return null;
    const type = typeof digested.ticket_type === 'string' ? digested.ticket_type : null;
    return { tid: digested.tid, line: this.tickets.get(digested.tid) ?? null, ticket_type: type };
  }

  /**
   * At most `limit` tickets whose holder name holds the query's search key, ranked as the issuer's
   * search ranks them: the whole name, then a name starting with it, then a word starting with it,
   * then any other; within each, shorter names first, then by key and tid.
   */
  find(q: string, limit = MAX_FOUND): RosterLine[] {
    const key = searchKey(q);
    if (key === '') return [];
    const found: { line: RosterLine; rank: number; keys: NameKeys }[] = [];
    for (const line of this.tickets.values()) {
      const keys = this.keysOf(line);
      if (!keys.key.includes(key)) continue;
      const rank = keys.key === key ? 0 : keys.key.startsWith(key) ? 1 : keys.words.includes(` ${key}`) ? 2 : 3;
      found.push({ line, rank, keys });
    }
    found.sort(
      (a, b) =>
        a.rank - b.rank ||
        a.keys.key.length - b.keys.key.length ||
        compare(a.keys.key, b.keys.key) ||
        compare(a.line.tid, b.line.tid),
    );
    return found.slice(0, limit).map((f) => f.line);
  }

  /** A ticket's group from the roster: itself first, then the others of its order by tid; null if unknown. */
  group(tid: string): { order_ref: string | null; tickets: RosterLine[] } | null {
    const asked = this.tickets.get(tid);
    if (!asked) return null;
    if (asked.order_ref === null) return { order_ref: null, tickets: [asked] };
    const others = [...this.tickets.values()]
      .filter((line) => line.order_ref === asked.order_ref && line.tid !== tid)
      .sort((a, b) => compare(a.tid, b.tid));
    return { order_ref: asked.order_ref, tickets: [asked, ...others] };
  }

  private keysOf(line: RosterLine): NameKeys {
    let keys = this.keys.get(line.tid);
    if (keys?.name !== line.holder_name) {
      keys = { name: line.holder_name, key: searchKey(line.holder_name), words: searchWords(line.holder_name) };
      this.keys.set(line.tid, keys);
    }
    return keys;
  }
}

/** Code-point order, as both stores compare these ASCII keys and ids. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
