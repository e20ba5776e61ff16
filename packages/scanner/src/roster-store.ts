/**
 * Where the roster is kept: its own journal (`roster.jsonl`), one JSON line per page synced, so a sync
 * of a few changes appends a few lines instead of rewriting 50,000 names. Opening replays the journal;
 * once it holds more than twice the lines the roster needs (and `MIN_REWRITE` at least), the next
 * save rewrites it whole. A torn last line is left out by the storage: that page is pulled again.
 */
import { StateCorruptError } from './errors.ts';
import { type CodeLine, Roster, type RosterLine } from './roster.ts';
import { JOURNALS, type Storage } from './storage/storage.ts';

/** A line of the roster journal. */
type RosterEntry =
  | { op: 'start'; eid: string }
  | { op: 'tickets'; cursor: string; tickets: RosterLine[] }
  | { op: 'codes'; cursor: string; codes: CodeLine[] }
  | { op: 'refused'; key: string }
  | { op: 'reread' };

/** Lines (tickets or digests) below which the journal is never rewritten. */
export const MIN_REWRITE = 10_000;
/** Lines a page of the rewritten journal holds. */
const PAGE = 1000;

/** The device's roster over its storage: what is held, and how much the journal holds. */
export class KeptRoster extends Roster {
  /** Tickets or digests the journal holds, replaced ones included. */
  private written = 0;

  private constructor(
    private readonly storage: Storage,
    readonly eid: string,
    private readonly minRewrite: number,
  ) {
    super();
  }

  /** Reads the roster of `eid`; one of another event (or none) reads as empty. */
  static async open(storage: Storage, eid: string, minRewrite = MIN_REWRITE): Promise<KeptRoster> {
    const roster = new KeptRoster(storage, eid, minRewrite);
    const lines = await storage.readJournal(JOURNALS.roster);
    const entries = lines.filter((line) => line.trim() !== '').map((line, i) => parse(line, i + 1));
    if (entries[0]?.op !== 'start' || entries[0].eid !== eid) return roster;
    for (const entry of entries) roster.replay(entry);
    return roster;
  }

  /** Keeps a page of roster lines and the cursor after it, durably. */
  async saveTickets(tickets: RosterLine[], cursor: string): Promise<void> {
    if (this.kind !== 'roster') await this.restart();
    this.applyTickets(tickets);
    this.cursor = cursor;
    await this.append({ op: 'tickets', cursor, tickets }, tickets.length);
  }

  /** Keeps a page of digests and the cursor after it, durably. */
  async saveCodes(codes: CodeLine[], cursor: string): Promise<void> {
    if (this.kind !== 'codes') await this.restart();
    this.applyCodes(codes);
    this.cursor = cursor;
    await this.append({ op: 'codes', cursor, codes }, codes.length);
  }

  /** Remembers that the issuer refuses the roster to this key, and drops any names held. */
  async refuse(apiKeyId: string): Promise<void> {
    this.clear();
    this.refusedKey = apiKeyId;
    await this.storage.replaceJournal(
      this.entries().map((e) => JSON.stringify(e)),
      JOURNALS.roster,
    );
    this.written = 0;
  }

  /**
   * Drops the digests held and marks that they are read again from the start: lines kept without a
   * type (from an issuer older than the field) must not be judged by a guessed type. Done once.
   */
  async rereadCodes(): Promise<void> {
    this.clear(true);
    this.reread = true;
    await this.storage.replaceJournal(
      this.entries().map((e) => JSON.stringify(e)),
      JOURNALS.roster,
    );
    this.written = 0;
  }

  /** Forgets everything held (a rejected key): an empty journal. */
  async forget(): Promise<void> {
    this.clear();
    await this.storage.replaceJournal([], JOURNALS.roster);
    this.written = 0;
  }

  private async restart(): Promise<void> {
    this.clear(true);
    await this.storage.replaceJournal(
      this.entries().map((e) => JSON.stringify(e)),
      JOURNALS.roster,
    );
    this.written = 0;
  }

  private async append(entry: RosterEntry, count: number): Promise<void> {
    this.written += count;
    if (this.written > Math.max(2 * this.size, this.minRewrite)) {
      const entries = this.entries();
      await this.storage.replaceJournal(
        entries.map((e) => JSON.stringify(e)),
        JOURNALS.roster,
      );
      this.written = this.size;
    } else await this.storage.appendJournal([JSON.stringify(entry)], JOURNALS.roster);
  }

  /** What is held, as journal lines: the event, the refusal, then pages of lines (the cursor on each). */
  private entries(): RosterEntry[] {
    const entries: RosterEntry[] = [{ op: 'start', eid: this.eid }];
    if (this.refusedKey !== null) entries.push({ op: 'refused', key: this.refusedKey });
    if (this.reread) entries.push({ op: 'reread' });
    const cursor = this.cursor ?? '';
    if (this.kind === 'roster') {
      const all = [...this.tickets.values()];
      for (let i = 0; i < all.length; i += PAGE)
        entries.push({ op: 'tickets', cursor, tickets: all.slice(i, i + PAGE) });
    } else if (this.kind === 'codes') {
      const all = [...this.digests.values()];
      for (let i = 0; i < all.length; i += PAGE) entries.push({ op: 'codes', cursor, codes: all.slice(i, i + PAGE) });
    }
    return entries;
  }

  private replay(entry: RosterEntry): void {
    if (entry.op === 'refused') this.refusedKey = entry.key;
    else if (entry.op === 'reread') this.reread = true;
    else if (entry.op === 'tickets') {
      this.applyTickets(entry.tickets);
      this.cursor = entry.cursor;
      this.written += entry.tickets.length;
    } else if (entry.op === 'codes') {
      this.applyCodes(entry.codes);
      this.cursor = entry.cursor;
      this.written += entry.codes.length;
    }
  }
}

/** A journal line, checked enough to replay; STATE_CORRUPT naming the line otherwise. */
function parse(line: string, n: number): RosterEntry {
  let entry: Record<string, unknown> | null;
  try {
    entry = JSON.parse(line) as Record<string, unknown> | null;
  } catch {
    throw new StateCorruptError(JOURNALS.roster, `line ${n} is not JSON`);
  }
  const ok =
    (entry?.op === 'start' && typeof entry.eid === 'string') ||
    (entry?.op === 'refused' && typeof entry.key === 'string') ||
    entry?.op === 'reread' ||
    (entry?.op === 'tickets' && typeof entry.cursor === 'string' && Array.isArray(entry.tickets)) ||
    (entry?.op === 'codes' && typeof entry.cursor === 'string' && Array.isArray(entry.codes));
  if (!ok) throw new StateCorruptError(JOURNALS.roster, `line ${n} is not a roster entry`);
  return entry as unknown as RosterEntry;
}
