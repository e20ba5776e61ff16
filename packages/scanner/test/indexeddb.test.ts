import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { Scanner, ScannerError, STATE_FILES } from '../src/index.ts';
import { IndexedDbStorage } from '../src/storage/indexeddb.ts';
import { enrolledStorage, fakeFetch, valid } from './fake-issuer.ts';
import { ticketFixture } from './keys.ts';

/** A fresh IndexedDB (fake-indexeddb: the standard's behaviour in Node) and a storage over it. */
async function fresh(name = 'ticket-scanner') {
  const indexedDB = new IDBFactory();
  const storage = await IndexedDbStorage.open(name, { indexedDB });
  return { indexedDB, storage, reopen: () => IndexedDbStorage.open(name, { indexedDB }) };
}

/** Every record of an object store, as it is kept (no decryption). */
async function raw(indexedDB: IDBFactory, name: string, store: string): Promise<unknown[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    return await new Promise<unknown[]>((resolve, reject) => {
      const request = db.transaction(store).objectStore(store).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

describe('the IndexedDB storage', () => {
  test('keeps the journal in order across appends, a rewrite and a reopening', async () => {
    const { storage, reopen } = await fresh();
    await storage.appendJournal(['a', 'b']);
    await storage.appendJournal(['c']);
    assert.deepEqual(await storage.readJournal(), ['a', 'b', 'c']);
    await storage.replaceJournal(['x', 'y']);
    await storage.appendJournal(['z']);
    storage.close();
    const again = await reopen();
    assert.deepEqual(await again.readJournal(), ['x', 'y', 'z']);
    await again.replaceJournal([]);
    assert.deepEqual(await again.readJournal(), []);
  });

  test('keeps files and appends to logs', async () => {
    const { storage, reopen } = await fresh();
    assert.equal(await storage.readFile(STATE_FILES.scanner), null);
    await storage.writeFileAtomic(STATE_FILES.scanner, '{"a":1}\n');
    await storage.writeFileAtomic(STATE_FILES.scanner, '{"a":2}\n');
    await storage.appendLog(STATE_FILES.refused, ['one']);
    await storage.appendLog(STATE_FILES.refused, ['two', 'three']);
    storage.close();
    const again = await reopen();
    assert.equal(await again.readFile(STATE_FILES.scanner), '{"a":2}\n');
    assert.equal(await again.readFile(STATE_FILES.refused), 'one\ntwo\nthree\n');
  });

  test('encrypts the API key with a non-extractable key, and reads it back after a reopening', async () => {
    const { indexedDB, storage, reopen } = await fresh('keyed');
    const secret = `sk_live_${'k'.repeat(40)}`;
    await storage.writeFileAtomic(STATE_FILES.credentials, JSON.stringify({ api_key: secret }));
    const files = await raw(indexedDB, 'keyed', 'files');
    assert.equal(files.length, 1);
    const stored = files[0] as { iv: Uint8Array; data: ArrayBuffer };
    assert.ok(stored.iv instanceof Uint8Array && stored.iv.length === 12);
    assert.ok(!Buffer.from(stored.data).toString('latin1').includes('sk_live_'), 'no plain key at rest');
    assert.ok(!JSON.stringify(files).includes(secret));

    const [key] = (await raw(indexedDB, 'keyed', 'keys')) as CryptoKey[];
    assert.equal(key!.extractable, false);
    await assert.rejects(crypto.subtle.exportKey('raw', key!), 'the key cannot be read out');

    storage.close();
    const again = await reopen();
    assert.equal(await again.readFile(STATE_FILES.credentials), JSON.stringify({ api_key: secret }));
    // A fresh IV per write: the same key written twice is stored differently.
    await again.writeFileAtomic(STATE_FILES.credentials, JSON.stringify({ api_key: secret }));
    const rewritten = (await raw(indexedDB, 'keyed', 'files'))[0] as { iv: Uint8Array };
    assert.notDeepEqual([...rewritten.iv], [...stored.iv]);
  });

  test('a credentials record that does not decrypt is named, not a crash', async () => {
    const { indexedDB, storage } = await fresh('tampered');
    await storage.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_x"}');
    storage.close();
    // Another key in the store (as a profile restored without its key would have).
    const db = await new Promise<IDBDatabase>((resolve) => {
      const open = indexedDB.open('tampered');
      open.onsuccess = () => resolve(open.result);
    });
    const other = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    await new Promise<void>((resolve) => {
      const tx = db.transaction('keys', 'readwrite');
      tx.objectStore('keys').put(other, 'credentials');
      tx.oncomplete = () => resolve();
    });
    db.close();
    const again = await IndexedDbStorage.open('tampered', { indexedDB });
    await assert.rejects(again.readFile(STATE_FILES.credentials), (error: unknown) => {
      assert.ok(error instanceof ScannerError);
      assert.equal(error.code, 'STATE_CORRUPT');
      assert.match(error.message, /credentials\.json cannot be decrypted/);
      return true;
    });
  });

  test('one writer at a time', async () => {
    const { storage } = await fresh();
    const release = await storage.lock();
    await assert.rejects(storage.lock(), (error: unknown) => (error as ScannerError).code === 'STATE_IN_USE');
    await release();
    await (
      await storage.lock()
    )();
  });

  test('forget() erases the whole database', async () => {
    const { indexedDB, storage } = await fresh('forgotten');
    await storage.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_y"}');
    await storage.appendJournal(['scan']);
    await storage.forget();
    assert.deepEqual(await indexedDB.databases(), []);
    const again = await IndexedDbStorage.open('forgotten', { indexedDB });
    assert.equal(await again.readFile(STATE_FILES.credentials), null);
    assert.deepEqual(await again.readJournal(), []);
  });

  test('a whole scanner runs over it: offline scans are kept and sync after a reopening', async () => {
    const { key, tokens } = await ticketFixture();
    const { storage, reopen } = await fresh('device');
    const memory = enrolledStorage(key);
    for (const [name, data] of memory.files) await storage.writeFileAtomic(name, data);

    const scanner = await Scanner.open(storage, { fetch: fakeFetch(key, valid) });
    const [first, again] = await scanner.scan([tokens.T1!, tokens.T1!], { offline: true });
    assert.equal(first!.verdict, 'admit');
    assert.equal(again!.reason, 'already_used');
    await scanner.close();
    storage.close();

    const device = await reopen();
    const reopened = await Scanner.open(device, { fetch: fakeFetch(key, valid) });
    assert.equal(reopened.queue.size, 2);
    const result = await reopened.sync();
    assert.equal(result.remaining, 0);
    assert.equal(reopened.status().checked_in_known, 1);
    await reopened.close();
  });
});
