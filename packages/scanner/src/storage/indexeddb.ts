/**
 * A Storage in IndexedDB, for the scanner in a browser: the same journal, files and logs as the file
 * system's, in one database per device. A write's promise resolves when its transaction has
 * committed with `durability: 'strict'` (flushed to disk where the browser supports it), so a scan
 * is stored before its verdict shows. The API key (`credentials.json`) is never stored in plain
 * text: it is encrypted with AES-GCM by a non-extractable WebCrypto key kept in the same database
 * (a CryptoKey is stored as an opaque object: script can use it but never read its bytes).
 * Browser APIs only: no node: module.
 */
import { ScannerError } from '../errors.ts';
import { appendRecord, readRecords, replaceRecords } from './indexeddb-journal.ts';
import { lockState } from './indexeddb-lock.ts';
import { JOURNALS, type JournalName, STATE_FILES, type Storage } from './storage.ts';

const VERSION = 1;
const JOURNAL = 'journal';
const FILES = 'files';
const KEYS = 'keys';
/** The id of the key that encrypts the credentials in the `keys` store. */
const CREDENTIALS_KEY = 'credentials';
/** Files stored encrypted. */
const ENCRYPTED = new Set<string>([STATE_FILES.credentials]);

/** How a storage is opened: the IndexedDB and WebCrypto to use (the browser's by default). */
export interface IndexedDbOptions {
  indexedDB?: IDBFactory;
  crypto?: Crypto;
}

interface EncryptedFile {
  iv: Uint8Array<ArrayBuffer>;
  data: ArrayBuffer;
}

const ioError = (what: string, error: unknown) =>
  new ScannerError('STATE_IO', `cannot ${what} in this browser's storage: ${(error as Error)?.message ?? error}`, {
    cause: error,
  });

/** A request's result. */
function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** A transaction's end: resolves once it has committed, rejects when it aborted. */
function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the transaction was aborted'));
  });
}

export class IndexedDbStorage implements Storage {
  private constructor(
    private readonly db: IDBDatabase,
    readonly name: string,
    private readonly factory: IDBFactory,
    private readonly subtle: SubtleCrypto,
    private readonly cryptoImpl: Crypto,
  ) {}

  /** Opens (creating on first use) the database `name`. */
  static async open(name = 'ticket-scanner', options: IndexedDbOptions = {}): Promise<IndexedDbStorage> {
    const factory = options.indexedDB ?? globalThis.indexedDB;
    const cryptoImpl = options.crypto ?? globalThis.crypto;
    if (!factory) throw new ScannerError('STATE_IO', 'this browser has no IndexedDB (a private window may lack it)');
    if (!cryptoImpl?.subtle) throw new ScannerError('STATE_IO', 'this page is not a secure context: no WebCrypto');
    const request = factory.open(name, VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(JOURNAL)) db.createObjectStore(JOURNAL, { autoIncrement: true });
      if (!db.objectStoreNames.contains(FILES)) db.createObjectStore(FILES);
      if (!db.objectStoreNames.contains(KEYS)) db.createObjectStore(KEYS);
    };
    let db: IDBDatabase;
    try {
      db = await done(request);
    } catch (error) {
      throw ioError('open the scanner state', error);
    }
    // Another page forgetting the device (or a newer version) asks this connection to step aside.
    db.onversionchange = () => db.close();
    return new IndexedDbStorage(db, name, factory, cryptoImpl.subtle, cryptoImpl);
  }

  /** The scan journal is its own object store, one record per line; the others: see indexeddb-journal.ts. */
  async appendJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    if (lines.length === 0) return;
    if (journal !== JOURNALS.scans) {
      await this.write(`write ${journal}`, [FILES], (tx) => appendRecord(tx.objectStore(FILES), journal, lines));
      return;
    }
    await this.write('write the scan journal', [JOURNAL], (tx) => {
      const store = tx.objectStore(JOURNAL);
      for (const line of lines) store.add(line);
    });
  }

  async readJournal(journal: JournalName = JOURNALS.scans): Promise<string[]> {
    try {
      if (journal !== JOURNALS.scans) return await readRecords(this.db.transaction(FILES).objectStore(FILES), journal);
      const tx = this.db.transaction(JOURNAL, 'readonly');
      // Keys increase with each add: getAll answers them in order.
      return (await done(tx.objectStore(JOURNAL).getAll())) as string[];
    } catch (error) {
      throw ioError(`read ${journal === JOURNALS.scans ? 'the scan journal' : journal}`, error);
    }
  }

  async replaceJournal(lines: readonly string[], journal: JournalName = JOURNALS.scans): Promise<void> {
    if (journal !== JOURNALS.scans) {
      await this.write(`rewrite ${journal}`, [FILES], (tx) => replaceRecords(tx.objectStore(FILES), journal, lines));
      return;
    }
    await this.write('rewrite the scan journal', [JOURNAL], (tx) => {
      const store = tx.objectStore(JOURNAL);
      store.clear();
      for (const line of lines) store.add(line);
    });
  }

  async appendLog(name: string, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.write(`write ${name}`, [FILES], (tx) => {
      const store = tx.objectStore(FILES);
      const read = store.get(name);
      read.onsuccess = () => {
        const before = typeof read.result === 'string' ? read.result : '';
        store.put(before + lines.map((line) => `${line}\n`).join(''), name);
      };
    });
  }

  async writeFileAtomic(name: string, data: string): Promise<void> {
    const value = ENCRYPTED.has(name) ? await this.encrypt(data) : data;
    await this.write(`write ${name}`, [FILES], (tx) => {
      tx.objectStore(FILES).put(value, name);
    });
  }

  async readFile(name: string): Promise<string | null> {
    let value: unknown;
    try {
      value = await done(this.db.transaction(FILES, 'readonly').objectStore(FILES).get(name));
    } catch (error) {
      throw ioError(`read ${name}`, error);
    }
    if (value === undefined) return null;
    if (ENCRYPTED.has(name)) return this.decrypt(value as EncryptedFile, name);
    return value as string;
  }

  /**
   * One writer per device: the Web Locks API across tabs where the browser has it (another tab
   * holding the state gives STATE_IN_USE), else within this page.
   */
  lock(): Promise<() => Promise<void>> {
    return lockState(this.factory, this.name);
  }

  /** Closes the database (a lock held is released by its own function). */
  async close(): Promise<void> {
    this.db.close();
  }

  /** Erases everything this device keeps: enrolment, key, queue, what the feed taught. */
  async forget(): Promise<void> {
    this.db.close();
    const request = this.factory.deleteDatabase(this.name);
    try {
      await new Promise<void>((resolve, reject) => {
        request.onsuccess = () => resolve();
        request.onerror = () => reject(request.error);
        // Another connection still open (one that does not close on versionchange, as ours do): the
        // deletion completes once it closes.
        request.onblocked = () => undefined;
      });
    } catch (error) {
      throw ioError('erase the scanner state', error);
    }
  }

  private async write(what: string, stores: string[], fill: (tx: IDBTransaction) => void): Promise<void> {
    try {
      const tx = this.db.transaction(stores, 'readwrite', { durability: 'strict' });
      const end = committed(tx);
      try {
        fill(tx);
      } catch (error) {
        // Nothing of a half-filled transaction is kept.
        tx.abort();
        await end.catch(() => undefined);
        throw error;
      }
      await end;
    } catch (error) {
      throw ioError(what, error);
    }
  }

  /** The key that encrypts the credentials: made once, non-extractable, kept in the `keys` store. */
  private async credentialsKey(): Promise<CryptoKey> {
    const stored = await this.storedKey();
    if (stored) return stored;
    const key = await this.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    // Added, not put: of two first writers, one key wins and the other reads it.
    try {
      await this.write('keep the encryption key', [KEYS], (tx) => {
        tx.objectStore(KEYS).add(key, CREDENTIALS_KEY);
      });
      return key;
    } catch (error) {
      const winner = await this.storedKey();
      if (!winner) throw error;
      return winner;
    }
  }

  private async storedKey(): Promise<CryptoKey | undefined> {
    try {
      const request = this.db.transaction(KEYS, 'readonly').objectStore(KEYS).get(CREDENTIALS_KEY);
      return (await done(request)) as CryptoKey | undefined;
    } catch (error) {
      throw ioError('read the encryption key', error);
    }
  }

  private async encrypt(text: string): Promise<EncryptedFile> {
    const key = await this.credentialsKey();
    const iv = this.cryptoImpl.getRandomValues(new Uint8Array(12));
    const data = await this.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text));
    return { iv, data };
  }

  private async decrypt(file: EncryptedFile, name: string): Promise<string> {
    // Never a new key here: one made now could not decrypt what an earlier key encrypted.
    const key = await this.storedKey();
    try {
      if (!key) throw new Error('no key');
      const plain = await this.subtle.decrypt({ name: 'AES-GCM', iv: file.iv }, key, file.data);
      return new TextDecoder().decode(plain);
    } catch {
      throw new ScannerError('STATE_CORRUPT', `${name} cannot be decrypted: forget this device and enrol it again`);
    }
  }
}
