import { ScannerError } from '../errors.ts';
import { JOURNALS, type JournalName, type Storage } from './storage.ts';

/** A Storage in memory: for tests, and a model of what other backends must do. */
export class MemoryStorage implements Storage {
  readonly files = new Map<string, string>();
  /** The scan journal. */
  journal: string[] = [];
  /** The other journals, by name. */
  readonly journals = new Map<JournalName, string[]>();
  private locked = false;

  async appendJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    if (journal === JOURNALS.scans) this.journal.push(...lines);
    else if (this.journals.has(journal)) this.journals.get(journal)!.push(...lines);
    else this.journals.set(journal, [...lines]);
  }

  async readJournal(journal: JournalName = JOURNALS.scans): Promise<string[]> {
    return [...(journal === JOURNALS.scans ? this.journal : (this.journals.get(journal) ?? []))];
  }

  async replaceJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    if (journal === JOURNALS.scans) this.journal = [...lines];
    else this.journals.set(journal, [...lines]);
  }

  async appendLog(name: string, lines: readonly string[]): Promise<void> {
    // Nothing to append creates nothing, as on the other storages.
    if (lines.length === 0) return;
    this.files.set(name, (this.files.get(name) ?? '') + lines.map((line) => `${line}\n`).join(''));
  }

  async writeFileAtomic(name: string, data: string): Promise<void> {
    this.files.set(name, data);
  }

  async readFile(name: string): Promise<string | null> {
    return this.files.get(name) ?? null;
  }

  async lock(): Promise<() => Promise<void>> {
    if (this.locked) throw new ScannerError('STATE_IN_USE', 'the state is in use');
    this.locked = true;
    return async () => {
      this.locked = false;
    };
  }
}
