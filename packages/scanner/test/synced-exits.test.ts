import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { enroll, MemoryStorage, type RetryPolicy, Scanner } from '../src/index.ts';
import { Issuer } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  issuer = await Issuer.start();
});
after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer?.stop();
});

/** One try per request: a failing feed fails the sync's pull at once. */
const ONCE: RetryPolicy = {
  initialBackoffMs: 0,
  maxAttempts: 1,
  budgetMs: 0,
  maxRetryAfterMs: 0,
  rateLimitBudgetMs: 0,
};

test('a scanner keeps the exits it synced when the feed pull after them fails', async () => {
  const eid = await issuer.createEvent('Feed down after the upload');
  const [ticket] = await issuer.issue(eid, 1);
  // The issuer answers everything, except the changes feed while `feedDown` is set.
  let feedDown = false;
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    if (feedDown && String(input).includes('/changes')) {
      return new Response(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'down', details: {} } }), {
        status: 503,
        headers: { 'content-type': 'application/json' },
      });
    }
    return fetch(input, init);
  }) as typeof fetch;
  const storage = new MemoryStorage();
  await enroll(storage, await issuer.setupUri(eid), { fetch: fetchVia, retryPolicy: ONCE });
  const scanner = await Scanner.open(storage, { fetch: fetchVia, retryPolicy: ONCE });
  try {
    // In online, then a sync: the device knows the holder is inside from the feed alone.
    assert.equal((await scanner.scan([ticket!.token]))[0]!.verdict, 'admit');
    assert.equal((await scanner.sync()).problem, null);

    const out = (await scanner.exit([ticket!.token], { offline: true }))[0]!;
    assert.deepEqual([out.verdict, out.reason], ['exit', 'checked_out']);
    feedDown = true;
    const synced = await scanner.sync();
    assert.deepEqual([synced.uploaded, synced.remaining, synced.outcomes.checked_out], [1, 0, 1]);
    assert.ok(synced.problem !== null, 'the feed pull failed');

    // The exit left the queue with its answer; the device still knows the holder went out.
    const again = (await scanner.exit([ticket!.token], { offline: true }))[0]!;
    assert.deepEqual([again.verdict, again.reason], ['reject', 'not_inside']);

    // Once the feed answers, it says the same.
    feedDown = false;
    assert.equal((await scanner.sync()).problem, null);
    const later = (await scanner.exit([ticket!.token], { offline: true }))[0]!;
    assert.deepEqual([later.verdict, later.reason], ['reject', 'not_inside']);
  } finally {
    await scanner.close();
  }
});

test('a synced re-entry after a synced exit leaves the holder inside on the device, feed or not', async () => {
  const eid = await issuer.createEvent('Back in while the feed is down');
  await issuer.admin('PATCH', `/admin/v1/events/${eid}`, { reentry: true });
  const [ticket] = await issuer.issue(eid, 1);
  let feedDown = false;
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    if (feedDown && String(input).includes('/changes')) return new Response('', { status: 503 });
    return fetch(input, init);
  }) as typeof fetch;
  const storage = new MemoryStorage();
  await enroll(storage, await issuer.setupUri(eid), { fetch: fetchVia, retryPolicy: ONCE });
  const scanner = await Scanner.open(storage, { fetch: fetchVia, retryPolicy: ONCE });
  try {
    assert.equal((await scanner.scan([ticket!.token]))[0]!.verdict, 'admit');
    assert.equal((await scanner.sync()).problem, null);
    assert.equal((await scanner.exit([ticket!.token], { offline: true }))[0]!.verdict, 'exit');
    assert.equal((await scanner.scan([ticket!.token], { offline: true }))[0]!.verdict, 'admit');
    feedDown = true;
    const synced = await scanner.sync();
    assert.deepEqual([synced.uploaded, synced.outcomes.checked_out, synced.outcomes.valid], [2, 1, 1]);
    // Inside again: an offline entry is already_used, an exit lets them out.
    const entry = (await scanner.scan([ticket!.token], { offline: true }))[0]!;
    assert.deepEqual([entry.verdict, entry.reason], ['reject', 'already_used']);
  } finally {
    await scanner.close();
  }
});
