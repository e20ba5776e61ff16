import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ScanResult } from '../src/index.ts';
import {
  discovery,
  enrolledStorage,
  envelope,
  fetchFailure,
  json,
  openScanner,
  outcome,
  valid,
  type Handler,
} from './fake-issuer.ts';
import { type TestKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};

before(async () => {
  ({ key, tokens } = await ticketFixture());
});

/** Codes a gate's camera or its Ticket code field meets that are no ticket token. */
const NOT_TICKETS = [
  'https://bar.example/menu',
  'WIFI:S:Venue;T:WPA;P:secret;;',
  'not-a-ticket',
  'www.example.com',
  'a.b.c',
];

/** A token with its signature's last characters changed: JWS-shaped, naming its ticket, not genuine. */
const tampered = (token: string) => `${token.slice(0, -4)}AAAA`;

const hangs: Handler = () => new Promise(() => undefined);

describe('whether a scan asked the issuer, and what came of it (issuer_contact)', () => {
  test('input that is not a ticket token asks nothing: not valid, nothing queued, no request', async () => {
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, valid);
    for (const code of NOT_TICKETS) {
      for (const scan of [() => scanner.scan([code]), () => scanner.exit([code])]) {
        const [result] = await scan();
        assert.deepEqual(
          [result!.verdict, result!.reason, result!.tid, result!.idempotency_key, result!.issuer_contact],
          ['reject', 'invalid_signature', null, null, 'not_asked'],
          code,
        );
        assert.equal(result!.synced, undefined, 'a code that is no ticket owes nothing to a sync');
      }
    }
    assert.equal(seen.length, 0);
    assert.equal(scanner.queue.size, 0);
  });

  test('a token that is not genuine (bad signature, damaged header) is sent, and the issuer’s answer is the verdict', async () => {
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, (body) =>
      outcome('invalid_signature', body.tid),
    );
    const [header, payload] = tokens.T2!.split('.');
    for (const token of [tampered(tokens.T1!), `${header!.slice(3)}.${payload}.c2ln`]) {
      const [result] = await scanner.scan([token]);
      assert.deepEqual(
        [result!.verdict, result!.reason, result!.source, result!.issuer_contact],
        ['reject', 'invalid_signature', 'issuer', 'answered'],
      );
    }
    assert.deepEqual(
      seen.map((s) => s.body.tid),
      ['T1', 'T2'],
    );
  });

  test('any answer is `answered`: an outcome, a refusal for good, a 429 (whose verdict is the device’s)', async () => {
    const answers: [Handler, string][] = [
      [valid, 'issuer'],
      [(body) => outcome('revoked', body.tid), 'issuer'],
      [() => envelope(404, 'NOT_FOUND'), 'issuer'],
      [() => envelope(403, 'FORBIDDEN'), 'issuer'],
      [() => envelope(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '1' }), 'offline'],
    ];
    for (const [handler, source] of answers) {
      const { scanner } = await openScanner(enrolledStorage(key), key, handler);
      const [result] = await scanner.scan([tokens.T1!]);
      assert.deepEqual([result!.source, result!.issuer_contact], [source, 'answered']);
    }
  });

  test('no answer is `failed`: a refused connection, a 5xx, an answer not from the issuer, no answer in time', async () => {
    const failures: Handler[] = [
      () => Promise.reject(fetchFailure('ECONNREFUSED')),
      () => envelope(503, 'UNAVAILABLE'),
      () => new Response('<html>captive portal</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    ];
    for (const handler of failures) {
      const { scanner } = await openScanner(enrolledStorage(key), key, handler);
      const [result] = await scanner.scan([tokens.T1!]);
      assert.deepEqual([result!.verdict, result!.source, result!.issuer_contact], ['admit', 'offline', 'failed']);
      assert.equal(scanner.queue.size, 1);
    }
    const { scanner } = await openScanner(enrolledStorage(key), key, hangs, {
      onlineTimeoutMs: 50,
      fetch: ((_url: string, init: RequestInit) =>
        new Promise((_, reject) =>
          init.signal!.addEventListener('abort', () => reject(init.signal!.reason)),
        )) as typeof fetch,
    });
    const keepAlive = setTimeout(() => undefined, 5000);
    const [late] = await scanner.scan([tokens.T1!]);
    clearTimeout(keepAlive);
    assert.deepEqual([late!.source, late!.issuer_contact], ['offline', 'failed']);
  });

  test('an earlier scan of the ticket that gets no answer holds this one back: `failed`; a 429 there: `answered`', async () => {
    let answer: Handler = () => Promise.reject(fetchFailure('ECONNRESET'));
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, (body, all) => answer(body, all));
    await scanner.scan([tokens.T1!], { offline: true });
    const [held] = await scanner.scan([tokens.T1!]);
    assert.deepEqual([held!.source, held!.issuer_contact], ['offline', 'failed']);
    answer = () => envelope(429, 'RATE_LIMITED', 'slow down', { 'retry-after': '1' });
    const [limited] = await scanner.scan([tokens.T1!]);
    assert.deepEqual([limited!.source, limited!.issuer_contact], ['offline', 'answered']);
    assert.ok(seen.length >= 2);
  });

  test('an offline scan asks nothing: `not_asked`', async () => {
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, valid);
    const results: ScanResult[] = [
      ...(await scanner.scan([tokens.T1!], { offline: true })),
      ...(await scanner.exit([tokens.T2!], { offline: true })),
    ];
    assert.deepEqual(
      results.map((r) => [r.source, r.issuer_contact]),
      [
        ['offline', 'not_asked'],
        ['offline', 'not_asked'],
      ],
    );
    assert.equal(seen.length, 0);
  });

  test('exits follow the same rule: answered, refused, failed', async () => {
    const cases: [Handler, string, string][] = [
      [() => json(200, { status: 'checked_out', ticket: { tid: 'T1' } }), 'issuer', 'answered'],
      [() => envelope(404, 'NOT_FOUND'), 'issuer', 'answered'],
      [() => Promise.reject(fetchFailure('ECONNREFUSED')), 'offline', 'failed'],
      [() => envelope(502, 'BAD_GATEWAY'), 'offline', 'failed'],
    ];
    for (const [handler, source, contact] of cases) {
      const { scanner } = await openScanner(enrolledStorage(key), key, handler);
      const [result] = await scanner.exit([tokens.T1!]);
      assert.deepEqual([result!.source, result!.issuer_contact], [source, contact]);
    }
  });
});

describe('a scanner that never synced says so on its offline verdicts', () => {
  test('`synced: false` on each verdict decided on the device until a sync read the feed and the gates', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, () => Promise.reject(fetchFailure('ECONNREFUSED')));
    assert.equal(scanner.synced, false);
    const before = [
      ...(await scanner.scan([tokens.T1!], { offline: true })),
      ...(await scanner.scan([tokens.T2!])),
      ...(await scanner.exit([tokens.T3!], { offline: true })),
    ];
    assert.deepEqual(
      before.map((r) => r.synced),
      [false, false, false],
    );
    await scanner.close();

    // The fake issuer serves the feed and the gates, and accepts the queued scans.
    const accepts: Handler = (body, seen) =>
      seen.at(-1)!.url.endsWith('/check-out')
        ? json(200, { status: 'checked_out', ticket: { tid: body.tid } })
        : outcome('valid', body.tid);
    const { scanner: again } = await openScanner(storage, key, accepts);
    const sync = await again.sync();
    assert.equal(sync.problem, null);
    assert.equal(again.synced, true);
    const [offline] = await again.scan([tokens.T1!], { offline: true });
    assert.equal(offline!.source, 'offline');
    assert.equal('synced' in offline!, false);
    await again.close();
    const { scanner: reopened } = await openScanner(storage, key, valid);
    assert.equal(reopened.synced, true, 'the first sync is remembered');
  });

  test('a sync whose gates could not be read leaves it unsynced', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, valid, {
      retryPolicy: { initialBackoffMs: 0, maxAttempts: 1, budgetMs: 0, maxRetryAfterMs: 0, rateLimitBudgetMs: 0 },
      fetch: (async (input: string | URL | Request) => {
        const url = String(input);
        if (url.includes('/changes')) return json(200, { changes: [], next_cursor: 'c1', has_more: false });
        if (url.endsWith('/gates')) return envelope(503, 'UNAVAILABLE');
        return json(200, discovery(key));
      }) as typeof fetch,
    });
    const sync = await scanner.sync();
    assert.notEqual(sync.problem, null);
    assert.notEqual(scanner.status().last_sync_at, null, 'the feed itself was pulled');
    assert.equal(scanner.synced, false);
    const [result] = await scanner.scan([tokens.T1!], { offline: true });
    assert.equal(result!.synced, false);
  });
});
