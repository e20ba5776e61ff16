import { ScannerError } from '../errors.ts';
import type { Storage } from './storage.ts';

/** A Storage in memory: for tests, and a model of what other backends must do. */
export class MemoryStorage implements Storage {
  readonly files = new Map<string, string>();
  journal: string[] = [];
  private locked = false;

  async appendJournal(lines: readonly string[]): Promise<void> {
    this.journal.push(...lines);
  }

  async readJournal(): Promise<string[]> {
    return [...this.journal];
  }

  async replaceJournal(lines: readonly string[]): Promise<void> {
    this.journal = [...lines];
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
