import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FreshCache } from '../../src/domain/fresh-cache.ts';

/** A store read the test answers when it wants: counts the reads and holds each until released. */
function heldReads<V>() {
  const pending: { resolve: (value: V) => void; reject: (error: Error) => void }[] = [];
  return {
    read: () => new Promise<V>((resolve, reject) => pending.push({ resolve, reject })),
    get count() {
      return pending.length;
    },
    answer: (value: V) => pending.at(-1)!.resolve(value),
    fail: (error: Error) => pending.at(-1)!.reject(error),
  };
}

/** Whether the promise has settled by the end of the current microtasks, and with what. */
async function settledNow<T>(promise: Promise<T>): Promise<{ value: T } | 'pending'> {
  let outcome: { value: T } | 'pending' = 'pending';
  void promise.then((value) => (outcome = { value }));
  await turn();
  return outcome;
}

const TTL = 1000;

/** One turn of the event loop: what a read answered has been taken in. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A cache on a clock the test moves (`clock.now`), holding `value`, read at 0. */
async function cacheHolding(value: string) {
  const clock = { now: 0 };
  const cache = new FreshCache<string, string>({ ttlMs: TTL, now: () => clock.now });
  const store = heldReads<string>();
  const first = cache.get('k', store.read);
  store.answer(value);
  await first;
  return { clock, cache, store };
}

it('requests that find no fresh value while it is read share that read', async () => {
  const cache = new FreshCache<string, string>({ ttlMs: TTL, now: () => 0 });
  const store = heldReads<string>();
  const burst = Array.from({ length: 50 }, () => cache.get('k', store.read));
  assert.equal(store.count, 1);
  store.answer('v1');
  assert.deepEqual(new Set(await Promise.all(burst)), new Set(['v1']));
  assert.equal(await cache.get('k', store.read), 'v1');
  assert.equal(store.count, 1, 'fresh: not read again');
});

it('past half its time a value is still served at once, and read again beside it, once', async () => {
  const { clock, cache, store } = await cacheHolding('v1');
  clock.now = TTL / 2 - 1;
  assert.deepEqual(await settledNow(cache.get('k', store.read)), { value: 'v1' });
  assert.equal(store.count, 1, 'younger than half its time: no read');
  clock.now = TTL / 2;
  const during = await Promise.all(Array.from({ length: 20 }, () => settledNow(cache.get('k', store.read))));
  assert.ok(
    during.every((outcome) => outcome !== 'pending' && outcome.value === 'v1'),
    'nobody waits for the read',
  );
  assert.equal(store.count, 2, 'one read beside the value, not one per request');
  store.answer('v2');
  await turn();
  assert.equal(await cache.get('k', store.read), 'v2');
  assert.equal(store.count, 2);
});

it('no value is served older than its time: past it, requests wait for the read under way', async () => {
  const { clock, cache, store } = await cacheHolding('v1');
  clock.now = TTL * 0.9;
  assert.equal(await cache.get('k', store.read), 'v1');
  assert.equal(store.count, 2, 'read beside the value');
  clock.now = TTL;
  const late = cache.get('k', store.read);
  assert.equal(await settledNow(late), 'pending', 'expired while its read runs: waits for it');
  assert.equal(store.count, 2, 'and shares it');
  store.answer('v2');
  assert.equal(await late, 'v2');
});

it('a failed read fails the requests that waited for it; one beside a served value fails nobody', async () => {
  let now = 0;
  const cache = new FreshCache<string, string>({ ttlMs: TTL, now: () => now });
  const store = heldReads<string>();
  const waiting = Array.from({ length: 10 }, () => cache.get('k', store.read));
  store.fail(new Error('store unavailable'));
  const outcomes = await Promise.allSettled(waiting);
  assert.ok(outcomes.every((outcome) => outcome.status === 'rejected'));
  const next = cache.get('k', store.read);
  assert.equal(store.count, 2, 'the next request reads again');
  store.answer('v1');
  assert.equal(await next, 'v1');
  now = TTL * 0.6;
  assert.equal(await cache.get('k', store.read), 'v1');
  store.fail(new Error('store unavailable'));
  await turn();
  now = TTL * 0.7;
  assert.equal(await cache.get('k', store.read), 'v1', 'still served until its time');
  assert.equal(store.count, 4, 'and read again beside it');
  store.answer('v2');
  await turn();
  assert.equal(await cache.get('k', store.read), 'v2');
});

it('forget drops the value and the read under way: a read begun before a change does not put back what it read', async () => {
  const { clock, cache, store } = await cacheHolding('old');
  clock.now = TTL * 0.6;
  assert.equal(await cache.get('k', store.read), 'old');
  const before = store.count;
  cache.forget('k');
  const after = cache.get('k', store.read);
  assert.equal(store.count, before + 1, 'after a forget, a read of its own');
  store.answer('new');
  assert.equal(await after, 'new');
  assert.equal(await cache.get('k', store.read), 'new');
  assert.equal(store.count, before + 1);
});

it('only the values `keep` accepts are remembered, and a full cache starts afresh', async () => {
  const cache = new FreshCache<string, string | null>({
    ttlMs: TTL,
    capacity: 2,
    now: () => 0,
    keep: (value) => value !== null,
  });
  let reads = 0;
  const read = (value: string | null) => () => {
    reads += 1;
    return Promise.resolve(value);
  };
  assert.equal(await cache.get('missing', read(null)), null);
  assert.equal(await cache.get('missing', read(null)), null);
  assert.equal(reads, 2, 'a miss is read every time');
  await cache.get('a', read('A'));
  await cache.get('b', read('B'));
  assert.equal(await cache.get('a', read('other')), 'A');
  assert.equal(reads, 4);
  await cache.get('c', read('C'));
  assert.equal(await cache.get('a', read('A again')), 'A again', 'the third key emptied the full cache');
  assert.equal(reads, 6);
});

it('a read that throws before its promise fails the request, and never one served a remembered value', async () => {
  const { clock, cache } = await cacheHolding('v1');
  const throwing = (): Promise<string> => {
    throw new Error('store closed');
  };
  clock.now = TTL * 0.6;
  assert.equal(await cache.get('k', throwing), 'v1', 'served, its read beside it failed');
  clock.now = TTL;
  await assert.rejects(cache.get('k', throwing), /store closed/);
  assert.equal(await cache.get('k', () => Promise.resolve('v2')), 'v2', 'the next request reads again');
});
