/**
 * Where a scanner device keeps its state. The library needs only these few operations, so a
 * browser (IndexedDB) or mobile store can stand in for the file system of `fs.ts`.
 *
 * Durability is the contract: when a write's promise resolves, what it wrote survives a crash
 * (`kill -9`, power loss where the medium honours flushes).
 */
export interface Storage {
  /**
   * Appends complete lines to a journal (the scan journal unless another is named); durable when the
   * promise resolves.
   */
  appendJournal(lines: readonly string[], journal?: JournalName): Promise<void>;
  /** A journal's complete lines, oldest first; a torn last line (a write cut short) is left out. */
  readJournal(journal?: JournalName): Promise<string[]>;
  /** Replaces a whole journal atomically and durably (compaction). */
  replaceJournal(lines: readonly string[], journal?: JournalName): Promise<void>;
  /** Appends complete lines to a named log (e.g. `refused.jsonl`); durable when the promise resolves. */
  appendLog(name: string, lines: readonly string[]): Promise<void>;
  /** Replaces a named file atomically and durably; readable by the device's owner only. */
  writeFileAtomic(name: string, data: string): Promise<void>;
  /** A named file's content, or null when it does not exist. */
  readFile(name: string): Promise<string | null>;
  /** Takes exclusive use of the state for one writer; resolves to the function that gives it back. */
  lock(): Promise<() => Promise<void>>;
}

/** The append-only journals the scanner keeps, each apart from the others. */
export const JOURNALS = {
  /** The scan queue: scans and annuls, their answers, this device's admissions (see queue.ts). */
  scans: 'journal.jsonl',
  /** What the changes feed taught since the snapshot in `knowledge.json` (see knowledge-store.ts). */
  knowledge: 'knowledge.jsonl',
  /** The offline roster (names, orders, short codes) or the short codes' digests (see roster-store.ts). */
  roster: 'roster.jsonl',
} as const;

/** A journal's name (its file's, on the file system). */
export type JournalName = (typeof JOURNALS)[keyof typeof JOURNALS];

/** The names of the files the scanner keeps, one concern each. */
export const STATE_FILES = {
  /** The API key, alone (mode 0600 on the file system). */
  credentials: 'credentials.json',
  /** Who this scanner is: issuer, event, gate, scanner and key ids. */
  scanner: 'scanner.json',
  /** The cached discovery document, JWKS included. */
  discovery: 'discovery.json',
  /**
   * What the changes feed taught (revoked tickets, superseded tokens, check-ins, and the cursor) as of
   * its last snapshot; the knowledge journal holds what came after.
   */
  knowledge: 'knowledge.json',
  /** The event's rules (gates, re-entry, calendar, ticket types), as the last sync read them. */
  rules: 'rules.json',
  /** The gates and re-entry setting as scanners from before the rules route kept them (read, never written). */
  gates: 'gates.json',
  /** Scans the issuer refused for good, with its error, for the organizer. */
  refused: 'refused.jsonl',
} as const;
