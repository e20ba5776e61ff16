import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IDBDatabase as FakeIDBDatabase, IDBFactory } from 'fake-indexeddb';
import { enroll, Scanner, ScannerError, STATE_FILES } from '../src/index.ts';
import { IndexedDbStorage } from '../src/storage/indexeddb.ts';
import { enrolledStorage, fakeFetch, valid } from './fake-issuer.ts';
import { Issuer } from './issuer.ts';
import { ticketFixture } from './keys.ts';
import { storageConformance } from './storage-conformance.ts';

/** A fresh IndexedDB (fake-indexeddb: the standard's behaviour in Node) and storages over one database of it. */
async function fresh(name = 'ticket-scanner') {
  const indexedDB = new IDBFactory();
  const storage = await IndexedDbStorage.open(name, { indexedDB });
  return { indexedDB, storage, reopen: () => IndexedDbStorage.open(name, { indexedDB }) };
}

async function openRaw(indexedDB: IDBFactory, name: string): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Every record of an object store, as it is kept (no decryption). */
async function raw(indexedDB: IDBFactory, name: string, store: string): Promise<unknown[]> {
  const db = await openRaw(indexedDB, name);
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

/** Every byte the database keeps, all stores, as text (binary records as Latin-1): what an attacker reading the profile sees. */
async function everythingKept(indexedDB: IDBFactory, name: string): Promise<string> {
  const parts: string[] = [];
  for (const store of ['journal', 'files', 'keys']) {
    for (const record of await raw(indexedDB, name, store)) {
      if (typeof record === 'string') parts.push(record);
      else if (record && typeof record === 'object' && 'data' in record) {
        const { iv, data } = record as { iv: Uint8Array; data: ArrayBuffer };
        parts.push(Buffer.from(iv).toString('latin1'), Buffer.from(data).toString('latin1'));
      } else parts.push(JSON.stringify(record));
    }
  }
  return parts.join('\n');
}

/**
 * A LockManager as the Web Locks API has it, for exclusive `ifAvailable` requests: one per page
 * (tab) would share one manager per origin, so two storages stand for two tabs.
 */
function fakeLocks() {
  const held = new Set<string>();
  const requests: string[] = [];
  const locks = {
    async request(name: string, options: { ifAvailable?: boolean }, callback: (lock: unknown) => unknown) {
      requests.push(name);
      assert.equal(options.ifAvailable, true, 'the scanner never queues for the lock');
      if (held.has(name)) return callback(null);
      held.add(name);
      try {
        return await callback({ name, mode: 'exclusive' });
      } finally {
        held.delete(name);
      }
    },
  };
  return { locks, held, requests };
}

storageConformance('IndexedDbStorage', async () => {
  const indexedDB = new IDBFactory();
  const handles: IndexedDbStorage[] = [];
  return {
    open: async () => {
      const storage = await IndexedDbStorage.open('conformance', { indexedDB });
      handles.push(storage);
      return storage;
    },
    dispose: async () => {
      for (const storage of handles) await storage.close();
    },
  };
});

describe('the IndexedDB storage', () => {
  test('keeps the journal as one record per line, in key order', async () => {
    const { indexedDB, storage } = await fresh('records');
    await storage.appendJournal(['a', 'b']);
    await storage.replaceJournal(['x']);
    await storage.appendJournal(['y', 'z']);
    await storage.close();
    assert.deepEqual(await raw(indexedDB, 'records', 'journal'), ['x', 'y', 'z']);
  });

  test('every write is one readwrite transaction asking for strict durability', async () => {
    const { storage } = await fresh('durable');
    const seen: { stores: string[]; mode: string | undefined; durability: string | undefined }[] = [];
    const original = FakeIDBDatabase.prototype.transaction;
    FakeIDBDatabase.prototype.transaction = function (
      this: IDBDatabase,
      ...args: Parameters<IDBDatabase['transaction']>
    ) {
      const [stores, mode, options] = args;
      seen.push({ stores: typeof stores === 'string' ? [stores] : [...stores], mode, durability: options?.durability });
      return original.apply(this, args);
    } as typeof original;
    try {
      await storage.appendJournal(['a', 'b', 'c']);
      await storage.replaceJournal(['x']);
      await storage.appendLog(STATE_FILES.refused, ['r']);
      await storage.writeFileAtomic(STATE_FILES.scanner, '{}');
      await storage.readJournal();
    } finally {
      FakeIDBDatabase.prototype.transaction = original;
    }
    const writes = seen.filter((tx) => tx.mode === 'readwrite');
    assert.deepEqual(
      writes.map((tx) => tx.stores),
      [['journal'], ['journal'], ['files'], ['files']],
    );
    for (const tx of writes) assert.equal(tx.durability, 'strict');
  });

  test('encrypts the API key with a non-extractable key, and reads it back after a reopening', async () => {
    const { indexedDB, storage, reopen } = await fresh('keyed');
    const secret = `sk_live_${'k'.repeat(40)}`;
    await storage.writeFileAtomic(STATE_FILES.credentials, JSON.stringify({ api_key: secret }));
    const files = await raw(indexedDB, 'keyed', 'files');
    assert.equal(files.length, 1);
    const stored = files[0] as { iv: Uint8Array; data: ArrayBuffer };
    assert.ok(stored.iv instanceof Uint8Array && stored.iv.length === 12);
    assert.ok(!(await everythingKept(indexedDB, 'keyed')).includes('sk_live_'), 'no plain key at rest');

    const keys = (await raw(indexedDB, 'keyed', 'keys')) as CryptoKey[];
    assert.equal(keys.length, 1);
    assert.equal(keys[0]!.extractable, false);
    assert.deepEqual(keys[0]!.algorithm, { name: 'AES-GCM', length: 256 });
    await assert.rejects(crypto.subtle.exportKey('raw', keys[0]!), 'the key cannot be read out');
    await assert.rejects(crypto.subtle.exportKey('jwk', keys[0]!), 'nor as a JWK');

    await storage.close();
    const again = await reopen();
    assert.equal(await again.readFile(STATE_FILES.credentials), JSON.stringify({ api_key: secret }));
    // A fresh IV per write: the same key written twice is stored differently, under the same key.
    await again.writeFileAtomic(STATE_FILES.credentials, JSON.stringify({ api_key: secret }));
    const rewritten = (await raw(indexedDB, 'keyed', 'files'))[0] as { iv: Uint8Array };
    assert.notDeepEqual([...rewritten.iv], [...stored.iv]);
    assert.equal((await raw(indexedDB, 'keyed', 'keys')).length, 1, 'the key is made once');
    await again.close();
    assert.equal(await (await reopen()).readFile(STATE_FILES.credentials), JSON.stringify({ api_key: secret }));
  });

  test('only the credentials are encrypted: other files are kept as they are written', async () => {
    const { indexedDB, storage } = await fresh('plain');
    await storage.writeFileAtomic(STATE_FILES.scanner, '{"scanner_id":"s"}\n');
    assert.deepEqual(await raw(indexedDB, 'plain', 'files'), ['{"scanner_id":"s"}\n']);
    assert.deepEqual(await raw(indexedDB, 'plain', 'keys'), [], 'no key is made before there is a secret');
  });

  test('two first writers of the credentials end with one key, and both read the last write', async () => {
    const { indexedDB, storage, reopen } = await fresh('race');
    const other = await reopen();
    await Promise.all([
      storage.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_a"}'),
      other.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_b"}'),
    ]);
    assert.equal((await raw(indexedDB, 'race', 'keys')).length, 1);
    const read = await storage.readFile(STATE_FILES.credentials);
    assert.ok(read === '{"api_key":"sk_live_a"}' || read === '{"api_key":"sk_live_b"}', String(read));
    assert.equal(await other.readFile(STATE_FILES.credentials), read);
  });

  test('a credentials record that does not decrypt is named, not a crash', async () => {
    const { indexedDB, storage } = await fresh('tampered');
    await storage.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_x"}');
    await storage.close();
    // Another key in the store (as a profile restored without its key would have).
    const db = await openRaw(indexedDB, 'tampered');
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
      assert.ok(!error.message.includes('sk_live_x'));
      return true;
    });
  });

  test('with the Web Locks API: a second tab gets STATE_IN_USE until the first releases', async () => {
    const { locks, held, requests } = fakeLocks();
    const previous = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true });
    try {
      const { storage: tab1, reopen } = await fresh('tabs');
      const tab2 = await reopen();
      const release = await tab1.lock();
      assert.deepEqual([...held], ['tabs-state']);
      await assert.rejects(tab2.lock(), (error: unknown) => {
        assert.ok(error instanceof ScannerError);
        assert.equal(error.code, 'STATE_IN_USE');
        assert.match(error.message, /another tab/);
        return true;
      });
      await release();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(held.size, 0, 'released');
      const release2 = await tab2.lock();
      assert.deepEqual([...held], ['tabs-state']);
      await release2();
      assert.deepEqual(requests, ['tabs-state', 'tabs-state', 'tabs-state']);
    } finally {
      if (previous) Object.defineProperty(globalThis, 'navigator', previous);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });

  test('forget() erases the whole database, even with another connection open', async () => {
    const { indexedDB, storage, reopen } = await fresh('forgotten');
    const otherTab = await reopen();
    await storage.writeFileAtomic(STATE_FILES.credentials, '{"api_key":"sk_live_y"}');
    await storage.writeFileAtomic(STATE_FILES.scanner, '{}');
    await storage.appendLog(STATE_FILES.refused, ['{}']);
    await storage.appendJournal(['scan']);
    await storage.forget();
    assert.deepEqual(await indexedDB.databases(), []);
    // The other connection stepped aside: it can no longer write into the forgotten state.
    await assert.rejects(otherTab.appendJournal(['late']), (error: unknown) => {
      return error instanceof ScannerError && error.code === 'STATE_IO';
    });
    const again = await IndexedDbStorage.open('forgotten', { indexedDB });
    for (const file of Object.values(STATE_FILES)) assert.equal(await again.readFile(file), null, file);
    assert.deepEqual(await again.readJournal(), []);
    assert.deepEqual(await raw(indexedDB, 'forgotten', 'keys'), [], 'the old key is gone with it');
  });

  test('a whole scanner runs over it: offline scans are kept and sync after a reopening', async () => {
    const { key, tokens } = await ticketFixture();
    const { storage, reopen } = await fresh('device');
    const memory = enrolledStorage(key);
    for (const [name, data] of memory.files) await storage.writeFileAtomic(name, data);

    const scanner = await Scanner.open(storage, { fetch: fakeFetch(key, valid) });
    await assert.rejects(Scanner.open(await reopen(), { fetch: fakeFetch(key, valid) }), (error: unknown) => {
      return error instanceof ScannerError && error.code === 'STATE_IN_USE';
    });
    const [first, again] = await scanner.scan([tokens.T1!, tokens.T1!], { offline: true });
    assert.equal(first!.verdict, 'admit');
    assert.equal(again!.reason, 'already_used');
    await scanner.close();
    await storage.close();

    const device = await reopen();
    const reopened = await Scanner.open(device, { fetch: fakeFetch(key, valid) });
    assert.equal(reopened.queue.size, 2);
    const result = await reopened.sync();
    assert.equal(result.remaining, 0);
    assert.equal(reopened.status().checked_in_known, 1);
    await reopened.close();
  });
});

describe('the IndexedDB storage against a real issuer', () => {
  let issuer: Issuer;
  before(async () => {
    issuer = await Issuer.start();
  });
  after(async () => {
    if (process.env.SHOW_ISSUER_LOG) process.stderr.write(issuer.output);
    await issuer.stop();
  });

  test('enrols, scans online and offline, syncs after a reopening; the API key never at rest in plain text', async () => {
    const eid = await issuer.createEvent('IndexedDB device');
    const [online, offline] = await issuer.issue(eid, 2);
    const { indexedDB, storage, reopen } = await fresh('enrolled');
    const enrolled = await enroll(storage, await issuer.setupUri(eid), { name: 'Browser gate' });
    assert.equal(enrolled.eid, eid);

    const credentials = JSON.parse((await storage.readFile(STATE_FILES.credentials))!) as { api_key: string };
    assert.match(credentials.api_key, /^sk_/);
    const kept = await everythingKept(indexedDB, 'enrolled');
    assert.ok(kept.includes(eid), 'the identity is kept in plain text');
    assert.ok(!kept.includes(credentials.api_key), 'the API key is not');
    assert.ok(!kept.includes(credentials.api_key.slice(-16)), 'not even a part of it');

    const scanner = await Scanner.open(storage);
    const [admitted] = await scanner.scan([online!.token]);
    assert.equal(admitted!.verdict, 'admit');
    assert.equal(admitted!.source, 'issuer');
    const [queued] = await scanner.scan([offline!.token], { offline: true });
    assert.equal(queued!.verdict, 'admit');
    assert.equal(queued!.source, 'offline');
    await scanner.close();
    await storage.close();

    const device = await reopen();
    const reopened = await Scanner.open(device);
    assert.equal(reopened.queue.size, 1);
    const result = await reopened.sync();
    assert.equal(result.remaining, 0);
    await reopened.close();
    const logged = (await issuer.scans(eid)).find((s) => s.idempotency_key === queued!.idempotency_key);
    assert.equal(logged?.outcome, 'valid');
    assert.equal(logged?.admitted_offline, true);
    assert.ok(!(await everythingKept(indexedDB, 'enrolled')).includes(credentials.api_key));
  });
});
