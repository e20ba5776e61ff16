import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { parseSetupUri, Scanner, ScannerError } from '../src/index.ts';
import {
  enrolledStorage,
  envelope,
  fetchFailure,
  openScanner,
  outcome,
  refusedLines,
  valid,
  type Handler,
} from './fake-issuer.ts';
import { type TestKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};

before(async () => {
  ({ key, tokens } = await ticketFixture());
});

describe('an online scan', () => {
  test('is stored before it is sent, and the issuer’s answer is the verdict', async () => {
    const storage = enrolledStorage(key);
    const { scanner, seen } = await openScanner(storage, key, (body) => {
      assert.equal(storage.journal.length, 1, 'the scan is in the journal before the request');
      return outcome('already_used', body.tid);
    });
    const [result] = await scanner.scan([tokens.T1!]);
    assert.deepEqual(
      { ...result, idempotency_key: 'k' },
      {
        verdict: 'reject',
        reason: 'already_used',
        tid: 'T1',
        source: 'issuer',
        idempotency_key: 'k',
        issuer_contact: 'answered',
        // The fake issuer's answer names no holder; the type comes from the signed token.
        ticket: { holder_name: null, ticket_type: 'GA', checked_in_at: null, checked_in_gate: null },
        // No note for the gate: none in the answer, and none the device knows.
        attention: false,
        checkin_texts: [],
      },
    );
    assert.equal(seen[0]!.body.ticket_token, tokens.T1);
    assert.equal(seen[0]!.body.admitted_offline, undefined);
    assert.equal(scanner.queue.size, 0);
  });

  test('a genuine token of another event is sent without the token and with signature_valid: true', async () => {
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, (body) => outcome('wrong_event', body.tid));
    const [result] = await scanner.scan([tokens.OTHER!]);
    assert.equal(result!.reason, 'wrong_event');
    assert.equal(seen[0]!.body.ticket_token, undefined);
    assert.equal(seen[0]!.body.signature_valid, true);
  });

  test('an issuer that refuses the connection gives the offline verdict, queued as admitted, not marked as maybe sent', async () => {
    const { scanner } = await openScanner(enrolledStorage(key), key, () =>
      Promise.reject(fetchFailure('ECONNREFUSED')),
    );
    const [result] = await scanner.scan([tokens.T1!]);
    assert.equal(result!.source, 'offline');
    assert.equal(result!.verdict, 'admit');
    const [queued] = scanner.queue.pending();
    assert.equal(queued!.admitted_offline, true);
    assert.equal(queued!.maybe_sent_plain, false);
    assert.ok(scanner.queue.admitted.has('T1'));
  });

  test('an issuer that does not answer in time gives the offline verdict, marked as maybe sent', async () => {
    const hang: Handler = () => new Promise(() => undefined);
    const storage = enrolledStorage(key);
    const seenSignal: AbortSignal[] = [];
    const { scanner } = await openScanner(storage, key, hang, {
      onlineTimeoutMs: 50,
      fetch: ((_url: string, init: RequestInit) =>
        new Promise((_, reject) => {
          seenSignal.push(init.signal!);
          init.signal!.addEventListener('abort', () => reject(init.signal!.reason));
        })) as typeof fetch,
    });
    // AbortSignal.timeout does not keep the process alive; a real socket would.
    const keepAlive = setTimeout(() => undefined, 5000);
    const started = Date.now();
    const [result] = await scanner.scan([tokens.T1!]);
    clearTimeout(keepAlive);
    assert.ok(Date.now() - started < 1000);
    assert.equal(result!.source, 'offline');
    assert.equal(scanner.queue.pending()[0]!.maybe_sent_plain, true);
  });

  test('a 5xx is treated like no answer (maybe sent); a 429 too (certainly not processed)', async () => {
    const storage = enrolledStorage(key);
    let status = 503;
    const { scanner } = await openScanner(storage, key, () =>
      envelope(status, status === 429 ? 'RATE_LIMITED' : 'INTERNAL'),
    );
    await scanner.scan([tokens.T1!]);
    status = 429;
    await scanner.scan([tokens.T2!]);
    const [first, second] = scanner.queue.pending();
    assert.equal(first!.maybe_sent_plain, true);
    assert.equal(second!.maybe_sent_plain, false);
  });

  test('a refusal for good (404) is the verdict, named by its code, and kept in refused.jsonl', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, () => envelope(404, 'NOT_FOUND'));
    const [result] = await scanner.scan([tokens.T1!]);
    assert.equal(result!.reason, 'NOT_FOUND');
    assert.equal(result!.source, 'issuer');
    assert.equal(scanner.queue.size, 0);
    assert.equal(refusedLines(storage)[0]!.error.code, 'NOT_FOUND');
  });

  test('queued earlier scans of the same ticket are sent first, in scan order', async () => {
    const storage = enrolledStorage(key);
    const { scanner, seen } = await openScanner(storage, key, valid);
    await scanner.scan([tokens.T1!], { offline: true });
    const [result] = await scanner.scan([tokens.T1!]);
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.body.admitted_offline, true);
    assert.equal(seen[1]!.body.admitted_offline, undefined);
    assert.equal(result!.source, 'issuer');
    assert.equal(scanner.queue.size, 0);
  });

  test('a gate-scoped scanner refuses another gate', async () => {
    const { scanner } = await openScanner(enrolledStorage(key, 'north'), key, valid);
    await assert.rejects(scanner.scan([tokens.T1!], { gate: 'south' }), (e: unknown) => {
      return e instanceof ScannerError && e.code === 'INVALID_OPTION';
    });
  });
});

describe('a corrupted state is a typed error', () => {
  const cases: [string, string][] = [
    ['scanner.json', '{not json'],
    ['scanner.json', '{"issuer":"x"}'],
    ['credentials.json', '{}'],
    ['discovery.json', '[]'],
    ['knowledge.json', '{"cursor":3}'],
  ];
  for (const [file, content] of cases) {
    test(`${file} holding ${content} is STATE_CORRUPT naming the file`, async () => {
      const storage = enrolledStorage(key);
      storage.files.set(file, content);
      await assert.rejects(Scanner.open(storage), (error: unknown) => {
        assert.ok(error instanceof ScannerError);
        assert.equal(error.code, 'STATE_CORRUPT');
        assert.ok(error.message.includes(file));
        return true;
      });
    });
  }
});

describe('the setup URI', () => {
  test('ticket-issuer://enroll?iss=…&token=st_… gives the issuer and the token', () => {
    const uri = `ticket-issuer://enroll?${new URLSearchParams({ iss: 'https://tickets.example/', token: 'st_abc' })}`;
    assert.deepEqual(parseSetupUri(uri), { iss: 'https://tickets.example', token: 'st_abc' });
  });

  test('anything else is INVALID_SETUP_URI, and the message never repeats the token', () => {
    for (const uri of [
      'https://example.com/enroll?iss=https://x&token=st_secret1',
      'ticket-issuer://enroll?token=st_secret1',
      'ticket-issuer://enroll?iss=ftp://x&token=st_secret1',
      'ticket-issuer://enroll?iss=not a url&token=st_secret1',
      'ticket-issuer://enroll?iss=https://x&token=sk_live_secret1',
      'ticket-issuer://enroll?iss=https://x',
    ]) {
      assert.throws(
        () => parseSetupUri(uri),
        (error: unknown) => {
          assert.ok(error instanceof ScannerError && error.code === 'INVALID_SETUP_URI', uri);
          assert.ok(!error.message.includes('secret1'));
          return true;
        },
      );
    }
  });
});
