import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { MemoryStorage, type QueuedAnnul, type QueuedScan, ScanQueue } from '../src/index.ts';
import { PendingItems } from '../src/pending-items.ts';
import { enrolledStorage, fetchFailure, openScanner, valid } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';
import { queuedScan } from './storage-conformance.ts';

const keyOf = (item: QueuedScan) => item.idempotency_key;

describe('the queue’s index by ticket', () => {
  test('each ticket’s items in the order recorded; an item recorded again keeps its place', () => {
    const items = new PendingItems();
    const [a1, b1, a2, a3] = [queuedScan('A'), queuedScan('B'), queuedScan('A'), queuedScan('A')];
    for (const item of [a1!, b1!, a2!, a3!]) items.set(keyOf(item), item);
    const again = { ...a2!, admitted_offline: false };
    items.set(keyOf(a2!), again);
    assert.deepEqual(items.ofTicket('A'), [a1, again, a3]);
    assert.deepEqual([...items.values()], [a1, b1, again, a3]);
    items.delete(keyOf(a1!));
    items.delete('not queued');
    assert.deepEqual(items.ofTicket('A'), [again, a3]);
    items.delete(keyOf(b1!));
    assert.deepEqual([items.ofTicket('B'), items.size], [[], 2]);
  });

  test('a list once given stays as it was while items come and go', () => {
    const items = new PendingItems();
    const [a1, a2] = [queuedScan('A'), queuedScan('A')];
    items.set(keyOf(a1!), a1!);
    const given = items.ofTicket('A');
    items.set(keyOf(a2!), a2!);
    items.delete(keyOf(a1!));
    assert.deepEqual(given, [a1]);
    assert.deepEqual(items.ofTicket('A'), [a2]);
  });

  test('a reopened and a compacted queue index the same items, annuls included', async () => {
    const storage = new MemoryStorage();
    const queue = await ScanQueue.open(storage);
    const scans = [queuedScan('A'), queuedScan('B'), queuedScan('A')];
    await queue.record(scans);
    const annul: QueuedAnnul = {
      action: 'annul',
      idempotency_key: keyOf(scans[2]!),
      tid: 'A',
      annulled_at: new Date().toISOString(),
      entry_at: scans[2]!.scanned_at,
      before: 'unused',
    };
    await queue.queueAnnul(annul);
    await queue.ack([keyOf(scans[0]!)]);
    const expected = [scans[2], annul];
    assert.deepEqual(queue.itemsOf('A'), expected);
    assert.deepEqual((await ScanQueue.open(storage)).itemsOf('A'), expected);
    await queue.compact();
    assert.deepEqual((await ScanQueue.open(storage)).itemsOf('A'), expected);
  });
});

describe('a scan asks the queue about its own ticket only', () => {
  let key: TestKey;
  before(async () => {
    key = await testKey();
  });

  test('with 2,000 scans of other tickets queued, a scan never lists the whole queue', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, () => Promise.reject(fetchFailure('ECONNREFUSED')));
    const others = await Promise.all(Array.from({ length: 2000 }, (_, n) => key.sign(claims(`OTHER${n}`))));
    await scanner.scan(others, { offline: true });
    const token = await key.sign(claims('MINE'));
    const [first] = await scanner.scan([token], { offline: true });
    const whole = () => assert.fail('the whole queue was listed');
    Object.assign(scanner.queue, { items: whole, pending: whole });
    const [offline] = await scanner.scan([token], { offline: true });
    assert.deepEqual([first!.verdict, offline!.reason], ['admit', 'already_used']);
    const mine = scanner.queue.itemsOf('MINE')[0] as QueuedScan;
    assert.equal(offline!.ticket!.checked_in_at, mine.scanned_at, 'where this device let it in');
    const [online] = await scanner.scan([token]);
    assert.equal(online!.reason, 'already_used', 'decided on the device: the issuer does not answer');
    await scanner.close();
    const { scanner: answering } = await openScanner(storage, key, valid);
    Object.assign(answering.queue, { items: whole, pending: whole });
    const [sent] = await answering.scan([await key.sign(claims('OTHER7'))]);
    assert.equal(sent!.source, 'issuer', 'the ticket’s earlier scan went first, then this one');
    assert.equal(answering.queue.itemsOf('OTHER7').length, 0);
    await answering.close();
  });
});
