import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ScannerError, SYNC_IN_FLIGHT } from '../src/index.ts';
import {
  enrolledStorage,
  envelope,
  fakeTimer,
  fetchFailure,
  openScanner,
  outcome,
  refusedLines,
  valid,
  type Handler,
} from './fake-issuer.ts';
import { claims, type TestKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};

before(async () => {
  ({ key, tokens } = await ticketFixture());
});

describe('sync', () => {
  test('sends each ticket’s scans in scan order, tickets in parallel, SYNC_IN_FLIGHT at a time', async () => {
    const storage = enrolledStorage(key);
    let inFlight = 0;
    let peak = 0;
    const { scanner, seen } = await openScanner(storage, key, async (body) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return outcome('valid', body.tid);
    });
    const many = [];
    for (let i = 0; i < 80; i++) many.push(await key.sign(claims(`P${i % 40}`)));
    const scanned = await scanner.scan(many, { offline: true });
    const result = await scanner.sync();
    assert.equal(result.uploaded, 80);
    assert.equal(result.remaining, 0);
    assert.equal(peak, SYNC_IN_FLIGHT, 'as many in flight as allowed, never more');
    for (let t = 0; t < 40; t++) {
      const expected = scanned.filter((s) => s.tid === `P${t}`).map((s) => s.idempotency_key);
      const sent = seen.filter((s) => s.body.tid === `P${t}`).map((s) => s.body.idempotency_key);
      assert.deepEqual(sent, expected);
    }
    const original = new Map(scanned.map((s) => [s.idempotency_key, s]));
    assert.ok(seen.every((s) => original.has(s.body.idempotency_key)));
  });

  test('honours Retry-After on 429 and refuses nothing', async () => {
    const timer = fakeTimer();
    let calls = 0;
    const { scanner } = await openScanner(
      enrolledStorage(key),
      key,
      (body) => (++calls <= 2 ? envelope(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '2' }) : valid(body, [])),
      { timer, concurrency: 1 },
    );
    await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [2, 0, 0]);
    assert.deepEqual(timer.sleeps, [2000, 2000]);
  });

  test('backs off exponentially against a dead issuer, then stops with the scans still queued', async () => {
    const timer = fakeTimer();
    const { scanner, seen } = await openScanner(
      enrolledStorage(key),
      key,
      () => Promise.reject(fetchFailure('ECONNREFUSED')),
      { timer, concurrency: 1 },
    );
    await scanner.scan([tokens.T1!, tokens.T2!, tokens.T3!], { offline: true });
    const result = await scanner.sync();
    assert.equal(result.remaining, 3);
    assert.equal(result.uploaded, 0);
    assert.ok(result.problem instanceof ScannerError && result.problem.code === 'ISSUER_UNREACHABLE');
    assert.deepEqual(timer.sleeps, [200, 400, 800, 1600]);
    assert.equal(seen.length, 5, 'five tries of the first scan, then no new work');
  });

  test('a 4xx refusal is dropped from the queue, counted and kept in refused.jsonl with the issuer’s error', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, (body) =>
      body.tid === 'T2'
        ? envelope(400, 'INVALID_REQUEST', 'scanned_at is more than 48 hours in the past')
        : valid(body, []),
    );
    await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [1, 1, 0]);
    const [line] = refusedLines(storage);
    assert.equal(line!.error.code, 'INVALID_REQUEST');
    assert.equal(line!.scan.tid, 'T2');
  });

  test('an admission refused for good is taken back: the device admits that holder again, as the issuer would', async () => {
    const { scanner } = await openScanner(enrolledStorage(key), key, (body) =>
      body.tid === 'T2'
        ? envelope(400, 'INVALID_REQUEST', 'scanned_at is more than 48 hours in the past')
        : valid(body, []),
    );
    await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    assert.deepEqual((await scanner.sync()).refused, 1);
    // The issuer counted T1's entry and never T2's: offline, T1 is inside and T2 has not come in.
    const [again1, again2] = await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    assert.equal(again1!.reason, 'already_used');
    assert.equal(again2!.reason, 'valid');
  });

  test('a 409 for a scan that may have reached the issuer without admitted_offline is resent without it', async () => {
    const held = new Map<string, boolean>();
    const handler: Handler = (body) => {
      const flag = body.admitted_offline === true;
      if (held.has(body.idempotency_key) && held.get(body.idempotency_key) !== flag) {
        return envelope(409, 'IDEMPOTENCY_CONFLICT');
      }
      held.set(body.idempotency_key, flag);
      return outcome('valid', body.tid);
    };
    let reachable = false;
    const storage = enrolledStorage(key);
    const { scanner, seen } = await openScanner(storage, key, (body, s) => {
      const answer = handler(body, s);
      if (!reachable) return Promise.reject(Object.assign(new Error('aborted'), { name: 'TimeoutError' }));
      return answer;
    });
    await scanner.scan([tokens.T1!]);
    assert.equal(scanner.queue.pending()[0]!.maybe_sent_plain, true);
    reachable = true;
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.outcomes.valid], [1, 0, 1]);
    assert.deepEqual(
      seen.map((s) => s.body.admitted_offline ?? false),
      [false, true, false],
    );
  });

  test('a 409 for a scan never sent plain is a refusal for good', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, () => envelope(409, 'IDEMPOTENCY_CONFLICT'));
    await scanner.scan([tokens.T1!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [0, 1, 0]);
  });
});
