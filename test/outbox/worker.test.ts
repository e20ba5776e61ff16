/**
 * The one outbox worker, on an outbox in memory (the stores' own leases are their conformance suites'):
 * a result goes out under the claim that made it, a store that fails keeps the results until it answers,
 * stop() waits for the attempts under way, and fewer attempts run at once while the instance is busy.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { type OutboxWorkerOptions, OutboxWorker } from '../../src/outbox/worker.ts';
import { eventually } from '../helpers/eventually.ts';
import { FakeOutbox, HeldSender, type Item, memoryLog, type Result } from './fake-outbox.ts';

const workers: OutboxWorker<Item, Result>[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

function workerOf(sender: HeldSender, options: Partial<OutboxWorkerOptions> = {}) {
  const { log, lines } = memoryLog();
  const worker = new OutboxWorker(sender, {
    log,
    pollMs: 10,
    limits: { concurrency: 4, claimLimit: 4, perGroup: Infinity },
    ...options,
  });
  workers.push(worker);
  return { worker, lines };
}

describe('the outbox worker', () => {
  it('records a result only under the claim that made it: a late end after a newer claim changes nothing', async () => {
    const outbox = new FakeOutbox();
    outbox.add('a');
    const first = new HeldSender(outbox, 'first');
    const { worker: one } = workerOf(first);
    one.start();
    await eventually('the first worker attempts a', () => first.held.has('a'), 3000, 2);
    const firstToken = outbox.rows.get('a')!.token;
    // The first attempt outlives its lease; a second worker claims the item again, with a token of its own.
    outbox.expireLeases();
    const second = new HeldSender(outbox, 'second');
    const { worker: two } = workerOf(second);
    two.start();
    await eventually('the second worker attempts a', () => second.held.has('a'), 3000, 2);
    const secondToken = outbox.rows.get('a')!.token;
    assert.notEqual(secondToken, firstToken, 'each claim has a fresh token');
    second.release('a');
    await eventually('the second result is recorded', () => outbox.done().includes('a'), 3000, 2);
    first.release('a');
    await eventually('the first result is offered too', () => outbox.offered.length === 2, 3000, 2);
    assert.deepEqual(
      outbox.offered.map((r) => [r.by, r.token]),
      [
        ['second', secondToken],
        ['first', firstToken],
      ],
      'each worker offers its result under its own claim’s token',
    );
    assert.equal(outbox.rows.get('a')!.by, 'second', 'the late end under the old lease was not recorded');
  });

  it('keeps the results the store cannot take, in order, and records them once it answers; said once', async () => {
    const outbox = new FakeOutbox();
    for (const id of ['a', 'b', 'c']) outbox.add(id);
    const sender = new HeldSender(outbox, 'w');
    const { worker, lines } = workerOf(sender);
    worker.start();
    await eventually('three attempts under way', () => sender.held.size === 3, 3000, 2);
    outbox.failRecords = 2;
    sender.release('a');
    sender.release('b');
    await eventually('both failing records were tried', () => outbox.failRecords === 0, 3000, 2);
    assert.deepEqual(outbox.done(), [], 'nothing recorded while the store fails');
    sender.release('c');
    await eventually('all three recorded once the store answers', () => outbox.done().length === 3, 5000, 2);
    assert.deepEqual(
      outbox.offered.map((r) => r.id),
      ['a', 'b', 'c'],
      'the kept results went first',
    );
    const warned = lines.filter((l) => l.level === 'warn');
    assert.equal(warned.length, 1, 'one warning for the outage');
    assert.match(warned[0]!.msg, /^test outbox: recording attempts failed; kept to try again$/);
    assert.ok(lines.some((l) => l.level === 'info' && l.msg === 'test outbox: the store answers again'));
  });

  it('a claim that fails is tried again later; the items are attempted once the store answers', async () => {
    const outbox = new FakeOutbox();
    outbox.add('a');
    outbox.failClaims = 1;
    const sender = new HeldSender(outbox, 'w', true);
    const { worker, lines } = workerOf(sender);
    const started = Date.now();
    worker.start();
    await eventually('a sent after the outage', () => outbox.done().includes('a'), 5000, 2);
    assert.ok(Date.now() - started >= 900, 'the next look waited about a second');
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['test outbox: the store cannot be read; retrying', 'test outbox: the store answers again'],
    );
  });

  it('stop() waits for the attempts under way and records them before it resolves', async () => {
    const outbox = new FakeOutbox();
    for (const id of ['a', 'b']) outbox.add(id);
    const sender = new HeldSender(outbox, 'w');
    const { worker } = workerOf(sender);
    worker.start();
    await eventually('two attempts under way', () => sender.held.size === 2, 3000, 2);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    outbox.add('c');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stopped, false, 'stop waits while attempts are under way');
    sender.release('a');
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(stopped, false, 'one is still under way');
    sender.release('b');
    await stopping;
    assert.deepEqual(outbox.done().sort(), ['a', 'b'], 'both ends recorded by the time stop resolved');
    assert.equal(outbox.rows.get('c')!.leased, false, 'nothing claimed after stop');
  });

  it('stop() during a claim waits for it, and for the attempts it began, and records them', async () => {
    const outbox = new FakeOutbox();
    outbox.add('a');
    const sender = new HeldSender(outbox, 'w', true);
    sender.claimMs = 100;
    const { worker } = workerOf(sender);
    worker.start();
    await eventually('a claim under way', () => sender.claims.length === 1, 3000, 2);
    await worker.stop();
    assert.deepEqual(outbox.done(), ['a'], 'the claimed item was attempted and recorded before stop resolved');
    assert.equal(worker.underWay, 0);
  });

  it('attempts fewer at once while the instance is busy, and all its slots once it is not', async () => {
    const outbox = new FakeOutbox();
    for (let i = 0; i < 40; i++) outbox.add(`m${i}`);
    const sender = new HeldSender(outbox, 'w', true);
    let busy = true;
    const { worker } = workerOf(sender, { busyLimits: { concurrency: 1 }, busy: () => busy });
    worker.start();
    await eventually('ten sent while busy', () => outbox.done().length >= 10, 5000, 2);
    assert.equal(sender.mostUnderWay, 1, 'one at a time while busy');
    assert.ok(
      sender.claims.every((c) => c.limit === 1),
      'each busy claim takes one',
    );
    busy = false;
    await eventually('the rest sent', () => outbox.done().length === 40, 5000, 2);
    assert.ok(sender.mostUnderWay > 1 && sender.mostUnderWay <= 4, `at most 4 at once (${sender.mostUnderWay})`);
  });

  it('holds at most perGroup attempts of one group under way, whatever its backlog', async () => {
    const outbox = new FakeOutbox();
    for (let i = 0; i < 6; i++) outbox.add(`slow${i}`, 'slow');
    outbox.add('other', 'fast');
    const sender = new HeldSender(outbox, 'w');
    const { worker } = workerOf(sender, { limits: { concurrency: Infinity, claimLimit: 10, perGroup: 2 } });
    worker.start();
    await eventually('the other group is attempted', () => sender.held.has('other'), 3000, 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const slow = [...sender.held.keys()].filter((id) => id.startsWith('slow'));
    assert.deepEqual(slow, ['slow0', 'slow1'], 'two of the slow group, no more');
    const last = sender.claims.at(-1)!;
    assert.deepEqual(
      last.groups.find((g) => g.group === 'slow'),
      { group: 'slow', free: 0 },
      'the claim was told the slow group has no room',
    );
    sender.release('slow0');
    await eventually('a freed slot takes the next of the group', () => sender.held.has('slow2'), 3000, 2);
    for (const id of [...sender.held.keys()]) sender.release(id);
  });

  it('purges at start, at once again while a batch was full, then every purgeEveryMs', async () => {
    const outbox = new FakeOutbox();
    const sender = new HeldSender(outbox, 'w');
    sender.purgeFull = 3;
    const { worker } = workerOf(sender, { purgeEveryMs: 60_000 });
    worker.start();
    await eventually('three full batches and the one that found less', () => sender.purges === 4, 3000, 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sender.purges, 4, 'then it waits');
  });
});
