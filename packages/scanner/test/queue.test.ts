import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type QueuedScan, ScanQueue, ScannerError, MemoryStorage } from '../src/index.ts';
import { FsStorage } from '../src/storage/fs.ts';
import { tempDir } from './issuer.ts';
import { storageConformance } from './storage-conformance.ts';

function scan(tid: string, extra: Partial<QueuedScan> = {}): QueuedScan {
  return {
    idempotency_key: crypto.randomUUID(),
    tid,
    ticket_token: `header.${tid}.signature`,
    send_token: true,
    scanned_at: new Date().toISOString(),
    gate_id: null,
    admitted_offline: true,
    verdict: 'admit',
    reason: 'valid',
    maybe_sent_plain: false,
    ...extra,
  };
}

const keysOf = (queue: ScanQueue) => queue.pending().map((s) => s.idempotency_key);

const opened: FsStorage[] = [];
after(async () => {
  for (const storage of opened) await storage.close();
});

async function fsQueue() {
  const dir = tempDir();
  const storage = await FsStorage.create(dir);
  opened.push(storage);
  return { dir, storage, queue: await ScanQueue.open(storage) };
}

describe('the scan journal', () => {
  test('a reopened queue sees every pending scan, in scan order, and not the acknowledged ones', async () => {
    const { storage, queue } = await fsQueue();
    const scans = [scan('A'), scan('B'), scan('A'), scan('C')];
    await queue.record(scans.slice(0, 2), ['A']);
    await queue.record(scans.slice(2));
    await queue.ack([scans[1]!.idempotency_key]);
    const reopened = await ScanQueue.open(storage);
    assert.deepEqual(
      keysOf(reopened),
      [scans[0], scans[2], scans[3]].map((s) => s!.idempotency_key),
    );
    assert.ok(reopened.admitted.has('A'));
  });

  test('a torn last line (a write cut short by kill -9) is ignored, and the next append is clean', async () => {
    const { dir, storage, queue } = await fsQueue();
    const kept = scan('A');
    await queue.record([kept]);
    await storage.close();
    appendFileSync(join(dir, 'journal.jsonl'), '{"op":"scan","scan":{"idempotency_key":"torn');
    // The next process: a fresh storage over the same directory.
    const next = await FsStorage.open(dir);
    const reopened = await ScanQueue.open(next);
    assert.deepEqual(keysOf(reopened), [kept.idempotency_key]);
    const later = scan('B');
    await reopened.record([later]);
    await next.close();
    const again = await ScanQueue.open(await FsStorage.open(dir));
    assert.deepEqual(keysOf(again), [kept.idempotency_key, later.idempotency_key]);
  });

  test('a complete line that is not a journal entry is corruption, never skipped', async () => {
    const { dir, storage, queue } = await fsQueue();
    await queue.record([scan('A')]);
    appendFileSync(join(dir, 'journal.jsonl'), '{"op":"scan","scan":{"tid":3}}\n');
    await assert.rejects(ScanQueue.open(storage), (error: unknown) => {
      assert.ok(error instanceof ScannerError);
      assert.equal(error.code, 'STATE_CORRUPT');
      assert.match(error.message, /journal\.jsonl.*line 2/);
      return true;
    });
  });

  test('compaction keeps exactly the pending scans (with their offline marks) and the admitted tickets', async () => {
    const { dir, storage, queue } = await fsQueue();
    const scans = Array.from({ length: 200 }, (_, i) => scan(`T${i}`, { admitted_offline: false }));
    await queue.record(scans, ['T0', 'T1']);
    await queue.ack(scans.slice(0, 150).map((s) => s.idempotency_key));
    await queue.markOffline(scans[199]!.idempotency_key, {
      admitted_offline: true,
      maybe_sent_plain: true,
      turned_away: false,
    });
    const before = statSync(join(dir, 'journal.jsonl')).size;
    assert.ok(queue.compactable);
    await queue.compact();
    assert.ok(statSync(join(dir, 'journal.jsonl')).size < before);
    const reopened = await ScanQueue.open(storage);
    assert.deepEqual(keysOf(reopened), keysOf(queue));
    assert.equal(reopened.size, 50);
    assert.deepEqual([...reopened.admitted].sort(), ['T0', 'T1', 'T199']);
    const last = reopened.pending().at(-1)!;
    assert.equal(last.admitted_offline, true);
    assert.equal(last.maybe_sent_plain, true);
  });

  test('holders let in or out on the issuer’s answer are kept, in order, until the feed holds them', async () => {
    const { storage, queue } = await fsQueue();
    await queue.ack([], ['A', 'B']);
    await queue.ack([], [], ['A']);
    const seen = queue.lastMove;
    await queue.ack([], [], ['B']);
    const moves = (q: ScanQueue) => [...q.moves].map(([tid, move]) => [tid, move.to]);
    assert.deepEqual(moves(queue), [
      ['A', 'out'],
      ['B', 'out'],
    ]);
    // A feed pulled after the first three moves holds them; the fourth came after it.
    await queue.movesInFeed(seen);
    assert.deepEqual(moves(queue), [['B', 'out']]);
    for (let i = 0; i < 80; i += 1) await queue.ack([], [], [`X${i}`]);
    await queue.compact();
    const reopened = await ScanQueue.open(storage);
    assert.deepEqual(moves(reopened), moves(queue), 'kept across compaction and a restart');
    assert.equal(reopened.lastMove, queue.lastMove, 'numbers go on from the last one');
    await reopened.movesInFeed(reopened.lastMove);
    assert.equal((await ScanQueue.open(storage)).moves.size, 0);
  });
});

storageConformance('MemoryStorage', async () => {
  const storage = new MemoryStorage();
  return { open: async () => storage, dispose: async () => undefined };
});

storageConformance('FsStorage', async () => {
  const dir = tempDir();
  const handles: FsStorage[] = [];
  return {
    open: async () => {
      const storage = handles.length === 0 ? await FsStorage.create(dir) : await FsStorage.open(dir);
      handles.push(storage);
      return storage;
    },
    dispose: async () => {
      for (const storage of handles) await storage.close();
    },
  };
});

describe('the file-system storage', () => {
  test('the state directory is 0700 and every file, the credentials first, is 0600', async () => {
    const dir = join(tempDir(), 'state');
    const storage = await FsStorage.create(dir);
    await storage.writeFileAtomic('credentials.json', '{"api_key":"sk_live_x"}');
    await storage.appendJournal(['{"op":"admitted","tids":[]}']);
    await storage.appendLog('refused.jsonl', ['{}']);
    await storage.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const file of ['credentials.json', 'journal.jsonl', 'refused.jsonl']) {
      assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600, file);
    }
  });

  test('an atomic write replaces the whole file and leaves no temporary file behind', async () => {
    const dir = tempDir();
    const storage = await FsStorage.create(dir);
    await storage.writeFileAtomic('scanner.json', 'first');
    await storage.writeFileAtomic('scanner.json', 'second');
    assert.equal(await storage.readFile('scanner.json'), 'second');
    assert.equal(await storage.readFile('missing.json'), null);
    const { readdirSync } = await import('node:fs');
    assert.deepEqual(readdirSync(dir), ['scanner.json']);
  });

  test('a live process holding the lock keeps others out; the lock of one killed with -9 is free at once', async () => {
    const dir = tempDir();
    const storage = await FsStorage.create(dir);
    const fsModule = new URL('../src/storage/fs.ts', import.meta.url).href;
    const script = `const { FsStorage } = await import(${JSON.stringify(fsModule)});
      await (await FsStorage.open(${JSON.stringify(dir)})).lock();
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(holder.stdout!, 'data');
    await assert.rejects(storage.lock(), (error: unknown) => {
      return (
        error instanceof ScannerError && error.code === 'STATE_IN_USE' && error.message.includes(`pid ${holder.pid}`)
      );
    });
    // Not waiting for the killed process to be reaped: its lock must not block the next command.
    const exited = once(holder, 'exit');
    holder.kill('SIGKILL');
    const started = Date.now();
    const release = await storage.lock();
    assert.ok(Date.now() - started < 1000, `took the lock after ${Date.now() - started} ms`);
    assert.equal(readFileSync(join(dir, 'lock'), 'utf8'), String(process.pid));
    await release();
    await exited;
  });

  test('a lock file left behind (no process holds the lock) does not block', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lock'), '999999999');
    const release = await (await FsStorage.create(dir)).lock();
    await release();
  });

  test('opening a directory that does not exist says the scanner is not enrolled', async () => {
    await assert.rejects(FsStorage.open(join(tempDir(), 'nowhere')), (error: unknown) => {
      return error instanceof ScannerError && error.code === 'NOT_ENROLLED';
    });
  });
});
