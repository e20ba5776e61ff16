/**
 * The journals other than the scan journal, in IndexedDB's `files` store: each append is one record
 * (its lines) under `journal:<name>:<n>`, and `journal:<name>` holds which numbers are in use. A new
 * journal needs no new object store, so no version change of the database (which would close the
 * connection of a page still open on the previous version of the app, mid-scan). Browser APIs only.
 */

/** The numbers of a journal's records: `first` up to, not including, `next`. */
interface JournalMeta {
  first: number;
  next: number;
}

const metaKey = (journal: string) => `journal:${journal}`;
const recordKey = (journal: string, n: number) => `journal:${journal}:${n}`;

const metaOf = (value: unknown): JournalMeta =>
  typeof value === 'object' && value !== null ? (value as JournalMeta) : { first: 0, next: 0 };

/** Reads the journal's numbers, then goes on with them, inside the store's transaction. */
function withMeta(store: IDBObjectStore, journal: string, then: (meta: JournalMeta) => void): void {
  const read = store.get(metaKey(journal));
  read.onsuccess = () => then(metaOf(read.result));
}

/** Appends lines as one record, inside a readwrite transaction on the store. */
export function appendRecord(store: IDBObjectStore, journal: string, lines: readonly string[]): void {
  withMeta(store, journal, ({ first, next }) => {
    store.put([...lines], recordKey(journal, next));
    store.put({ first, next: next + 1 } satisfies JournalMeta, metaKey(journal));
  });
}

/** Replaces every record of the journal by one holding `lines` (none when empty), in the same transaction. */
export function replaceRecords(store: IDBObjectStore, journal: string, lines: readonly string[]): void {
  withMeta(store, journal, ({ first, next }) => {
    for (let n = first; n < next; n++) store.delete(recordKey(journal, n));
    if (lines.length > 0) store.put([...lines], recordKey(journal, next));
    store.put({ first: next, next: lines.length > 0 ? next + 1 : next } satisfies JournalMeta, metaKey(journal));
  });
}

/** The journal's lines, oldest first, read in the store's transaction. */
export function readRecords(store: IDBObjectStore, journal: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const read = store.get(metaKey(journal));
    read.onerror = () => reject(read.error);
    read.onsuccess = () => {
      const { first, next } = metaOf(read.result);
      const parts: string[][] = [];
      let left = next - first;
      if (left === 0) resolve([]);
      for (let n = first; n < next; n++) {
        const get = store.get(recordKey(journal, n));
        get.onerror = () => reject(get.error);
        get.onsuccess = () => {
          parts[n - first] = (get.result as string[] | undefined) ?? [];
          if (--left === 0) resolve(parts.flat());
        };
      }
    };
  });
}
