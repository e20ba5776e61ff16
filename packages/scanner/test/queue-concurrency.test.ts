import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type QueuedScan, ScanQueue, MemoryStorage } from '../src/index.ts';

function scanOf(tid: string): QueuedScan {
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
  };
}

/**
 * A storage whose appends take effect at once but resolve `delayMs` later while `slow` is set, as an
 * IndexedDB transaction is ordered when it begins and complete only later.
 */
function slowStorage(delayMs: number): { storage: MemoryStorage; slow: (on: boolean) => void } {
  const storage = new MemoryStorage();
  const append = storage.appendJournal.bind(storage);
  let slow = false;
  storage.appendJournal = async (lines) => {
    await append(lines);
    if (slow) await new Promise((resolve) => setTimeout(resolve, delayMs));
  };
  return { storage, slow: (on) => (slow = on) };
}

test('a scan recorded while the journal is compacted is kept in the rewritten journal', async () => {
  const { storage, slow } = slowStorage(20);
  const queue = await ScanQueue.open(storage);
  await queue.record([scanOf('t-first')]);
  slow(true);
  const recording = queue.record([scanOf('t-late')]);
  const compacting = queue.compact();
  await Promise.all([recording, compacting]);
  const reopened = await ScanQueue.open(storage);
  assert.deepEqual(
    reopened.pending().map((scan) => scan.tid),
    ['t-first', 't-late'],
  );
});

test('appends begun during a compaction land after the rewritten journal', async () => {
  const { storage, slow } = slowStorage(10);
  const queue = await ScanQueue.open(storage);
  slow(true);
  const writes = [queue.record([scanOf('a')]), queue.compact(), queue.record([scanOf('b')]), queue.compact()];
  writes.push(queue.record([scanOf('c')]));
  await Promise.all(writes);
  const reopened = await ScanQueue.open(storage);
  assert.deepEqual(
    reopened
      .pending()
      .map((scan) => scan.tid)
      .sort(),
    ['a', 'b', 'c'],
  );
  assert.equal(queue.size, 3);
});
