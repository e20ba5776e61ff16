import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RecentKeys } from '../../src/domain/credentials.ts';
import type { ApiKeyRecord } from '../../src/store/store.ts';

/** A burst of requests with one scanner key reads the key once (see RecentKeys.lookup). */

const record = { api_key_id: 'key_1' } as ApiKeyRecord;

it('lookups of one hash while a read runs share that read; a key found is remembered, a miss is not', async () => {
  const recent = new RecentKeys();
  let reads = 0;
  let release!: (key: ApiKeyRecord) => void;
  const read = () => {
    reads += 1;
    return new Promise<ApiKeyRecord | null>((resolve) => (release = resolve));
  };
  const burst = Array.from({ length: 100 }, () => recent.lookup('h1', read));
  const other = recent.lookup('h2', () => Promise.resolve(null));
  assert.equal(reads, 1);
  release(record);
  for (const key of await Promise.all(burst)) assert.equal(key, record);
  assert.equal(await other, null);
  assert.equal(await recent.lookup('h1', read), record);
  assert.equal(reads, 1, 'the key found is remembered');
  let misses = 0;
  const miss = () => {
    misses += 1;
    return Promise.resolve(null);
  };
  await recent.lookup('h2', miss);
  await recent.lookup('h2', miss);
  assert.equal(misses, 2, 'a hash that finds no key is read again: made-up secrets are not remembered');
});

it('a failed read fails every lookup that waited for it, and the next lookup reads again', async () => {
  const recent = new RecentKeys();
  let reads = 0;
  const failing = () => {
    reads += 1;
    return Promise.reject(new Error('store unavailable'));
  };
  const burst = Array.from({ length: 10 }, () => recent.lookup('h1', failing));
  const outcomes = await Promise.allSettled(burst);
  assert.ok(outcomes.every((o) => o.status === 'rejected'));
  assert.equal(reads, 1);
  assert.equal(await recent.lookup('h1', () => Promise.resolve(record)), record);
});
