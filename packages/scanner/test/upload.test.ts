import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { isKeyRejected, ScannerError, type ScanResult } from '../src/index.ts';
import {
  enrolledStorage,
  envelope,
  fakeTimer,
  fetchFailure,
  json,
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

/** Tokens of tickets P0…P(n-1), signed by the test key. */
async function tickets(n: number): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => key.sign(claims(`P${i}`))));
}

describe('sync in uploads (POST /api/v1/tickets/scans)', () => {
  test('uploads at most 500 scans at a time, each ticket’s scans in scan order and in one upload', async () => {
    const storage = enrolledStorage(key);
    const { scanner, seen, uploadsSeen } = await openScanner(storage, key, valid, {}, true);
    const each = await tickets(400);
    const scanned: ScanResult[] = [];
    // Three scans of each ticket: an admit, then two the device turns away (already used).
    for (let round = 0; round < 3; round++) scanned.push(...(await scanner.scan(each, { offline: true })));
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [1200, 0, 0]);
    assert.deepEqual(
      uploadsSeen.map((u) => u.length),
      [498, 498, 204],
    );
    const uploadOf = new Map<string, number>();
    uploadsSeen.forEach((upload, i) => {
      for (const scan of upload) {
        assert.ok(uploadOf.get(scan.tid) === undefined || uploadOf.get(scan.tid) === i, `${scan.tid} split`);
        uploadOf.set(scan.tid, i);
      }
    });
    for (let t = 0; t < 400; t++) {
      const tid = `P${t}`;
      const made = scanned.filter((s) => s.tid === tid).map((s) => s.idempotency_key);
      const sent = uploadsSeen.flat().filter((s) => s.tid === tid);
      assert.deepEqual(
        sent.map((s) => s.idempotency_key),
        made,
      );
      // The device's own verdicts travel with them: let in, then turned away twice.
      assert.deepEqual(
        sent.map((s) => [s.action, s.admitted_offline]),
        [
          ['check_in', true],
          ['check_in', false],
          ['check_in', false],
        ],
      );
    }
    assert.equal(seen.length, 1200, 'every scan answered once');
  });

  test('a ticket with more scans than one upload holds is spread over consecutive uploads, in order', async () => {
    const { scanner, uploadsSeen } = await openScanner(enrolledStorage(key), key, valid, {}, true);
    const scanned = await scanner.scan(Array<string>(510).fill(tokens.T1!), { offline: true });
    const result = await scanner.sync();
    assert.equal(result.uploaded, 510);
    assert.deepEqual(
      uploadsSeen.map((u) => u.length),
      [500, 10],
    );
    assert.deepEqual(
      uploadsSeen.flat().map((s) => s.idempotency_key),
      scanned.map((s) => s.idempotency_key),
    );
  });

  test('each result settles its scan as its single answer would: outcomes, refusals kept, a 5xx left queued', async () => {
    const storage = enrolledStorage(key);
    const handler: Handler = (body) => {
      if (body.tid === 'T2') return envelope(400, 'INVALID_REQUEST', 'scanned_at is more than 48 hours in the past');
      if (body.tid === 'T3') return envelope(500, 'INTERNAL', 'internal error; retry with exponential backoff');
      if (body.tid === 'T9') {
        return json(409, {
          error: { code: 'CONFLICT', message: 'turned away', details: { reason: 'turned_away_offline' } },
        });
      }
      return outcome('valid', body.tid);
    };
    const { scanner } = await openScanner(storage, key, handler, {}, true);
    await scanner.scan([tokens.T1!, tokens.T2!, tokens.T3!, tokens.OTHER!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [2, 1, 1]);
    assert.equal(result.outcomes.valid, 1);
    assert.equal(result.outcomes.turned_away_offline, 1);
    const [line] = refusedLines(storage);
    assert.deepEqual([line!.scan.tid, line!.error.code], ['T2', 'INVALID_REQUEST']);
    assert.equal(scanner.queue.pending()[0]!.tid, 'T3', 'the scan the issuer did not answer stays queued');
    assert.ok(result.problem instanceof ScannerError);
  });

  test('an upload answered 429 waits Retry-After and goes again; nothing is refused', async () => {
    const timer = fakeTimer();
    let calls = 0;
    const { scanner } = await openScanner(enrolledStorage(key), key, valid, { timer }, async (scans, seen) => {
      if (++calls <= 2) return envelope(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '2' });
      seen.push(...scans.map((scan) => ({ url: 'upload', body: scan })));
      return json(200, {
        results: scans.map((s) => ({
          idempotency_key: s.idempotency_key,
          status_code: 200,
          body: { status: 'valid', ticket: { tid: s.tid, eid: s.eid } },
        })),
      });
    });
    await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [2, 0, 0]);
    assert.deepEqual(timer.sleeps, [2000, 2000]);
  });

  for (const status of [404, 405]) {
    test(`an issuer without uploads (${status}) gets one request per scan, as before`, async () => {
      const { scanner, seen, uploadsSeen } = await openScanner(enrolledStorage(key), key, valid, {}, () =>
        envelope(status, status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST'),
      );
      await scanner.scan([tokens.T1!, tokens.T2!, tokens.T1!], { offline: true });
      const result = await scanner.sync();
      assert.deepEqual([result.uploaded, result.remaining], [3, 0]);
      assert.equal(uploadsSeen.length, 1, 'one upload tried');
      assert.deepEqual(
        seen.map((s) => s.url.split('/').pop()),
        ['check-in', 'check-in', 'check-in'],
      );
    });
  }

  test('a rejected key (401) stops the sync; every scan stays queued', async () => {
    const { scanner } = await openScanner(enrolledStorage(key), key, valid, {}, () =>
      envelope(401, 'UNAUTHORIZED', 'the API key is revoked'),
    );
    await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    await assert.rejects(scanner.sync(), (error: unknown) => isKeyRejected(error));
    assert.equal(scanner.queue.size, 2);
  });

  test('an issuer that cannot be reached: backs off, then stops with the scans still queued', async () => {
    const timer = fakeTimer();
    const { scanner, uploadsSeen } = await openScanner(enrolledStorage(key), key, valid, { timer }, () =>
      Promise.reject(fetchFailure('ECONNREFUSED')),
    );
    await scanner.scan([tokens.T1!, tokens.T2!, tokens.T3!], { offline: true });
    const result = await scanner.sync();
    assert.equal(result.remaining, 3);
    assert.ok(result.problem instanceof ScannerError && result.problem.code === 'ISSUER_UNREACHABLE');
    assert.deepEqual(timer.sleeps, [200, 400, 800, 1600]);
    assert.equal(uploadsSeen.length, 5);
  });

  test('a conflict for a scan that may have reached the issuer plain is resent plain, in an upload of its own', async () => {
    const held = new Map<string, boolean>();
    let reachable = false;
    const handler: Handler = (body) => {
      const flag = body.admitted_offline === true;
      if (held.has(body.idempotency_key) && held.get(body.idempotency_key) !== flag) {
        return envelope(409, 'IDEMPOTENCY_CONFLICT');
      }
      held.set(body.idempotency_key, flag);
      if (!reachable) return Promise.reject(Object.assign(new Error('aborted'), { name: 'TimeoutError' }));
      return outcome('valid', body.tid);
    };
    const { scanner, uploadsSeen } = await openScanner(enrolledStorage(key), key, handler, {}, true);
    await scanner.scan([tokens.T1!]);
    assert.equal(scanner.queue.pending()[0]!.maybe_sent_plain, true);
    reachable = true;
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.outcomes.valid], [1, 0, 1]);
    assert.deepEqual(
      uploadsSeen.map((u) => u.map((s) => s.admitted_offline ?? false)),
      [[true], [false]],
    );
  });
});
