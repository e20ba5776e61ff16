import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { IssuerHttpError, type QueuedScan } from '../src/index.ts';
import { enrolledStorage, envelope, json, openScanner, outcome, refusedLines, valid } from './fake-issuer.ts';
import { claims, type TestKey, testKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};
let unknownKid: string;
let expired: string;

before(async () => {
  ({ key, tokens } = await ticketFixture());
  // Signed by a key the device does not know yet (a rotation it has not synced).
  unknownKid = await (await testKey()).sign(claims('T4'));
  expired = await key.sign(claims('T5', { exp: Math.floor(Date.now() / 1000) - 60 }));
});

/** The issuer's answer to a turned-away upload where it would have said valid. */
const turnedAway = () =>
  json(409, {
    error: { code: 'CONFLICT', message: 'turned away offline', details: { reason: 'turned_away_offline' } },
  });

describe('what an upload tells the issuer about the holder', () => {
  test('an offline admission carries admitted_offline true; an offline invalid_signature carries signature_valid false; every other offline rejection admitted_offline false', async () => {
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, valid);
    const verdicts = await scanner.scan([tokens.T1!, tokens.T1!, unknownKid, expired, tokens.OTHER!], {
      offline: true,
    });
    assert.deepEqual(
      verdicts.map((v) => [v.verdict, v.reason]),
      [
        ['admit', 'valid'],
        ['reject', 'already_used'],
        ['reject', 'invalid_signature'],
        ['reject', 'expired'],
        ['reject', 'wrong_event'],
      ],
    );
    await scanner.sync();
    const body = (i: number) => seen.find((s) => s.body.idempotency_key === verdicts[i]!.idempotency_key)!.body;
    assert.equal(body(0).admitted_offline, true);
    assert.equal(body(1).admitted_offline, false);
    assert.equal(body(2).signature_valid, false);
    assert.equal(body(2).ticket_token, unknownKid, 'the scanned token goes with the report');
    assert.equal(body(2).admitted_offline, undefined);
    assert.equal(body(3).admitted_offline, false);
    assert.equal(body(4).admitted_offline, false);
    assert.equal(body(4).signature_valid, true, 'a genuine token of another event is still sent without itself');
  });

  test('409 turned_away_offline is a final answer: the scan leaves the queue, counts as uploaded under outcomes.turned_away_offline, and is no refusal', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, (body) =>
      body.admitted_offline === false ? turnedAway() : outcome('valid', body.tid),
    );
    await scanner.scan([expired, tokens.T2!], { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [2, 0, 0]);
    assert.equal(result.outcomes.turned_away_offline, 1);
    assert.equal(result.outcomes.valid, 1);
    assert.deepEqual(refusedLines(storage), []);
  });

  test('a turned-away scan whose online attempt may have arrived plain meets IDEMPOTENCY_CONFLICT and is resent plain once', async () => {
    const held = new Map<string, string>();
    let reachable = false;
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, (body) => {
      const fingerprint = JSON.stringify([body.admitted_offline, body.signature_valid]);
      const first = held.get(body.idempotency_key);
      if (first !== undefined && first !== fingerprint) return envelope(409, 'IDEMPOTENCY_CONFLICT');
      held.set(body.idempotency_key, fingerprint);
      if (!reachable) return Promise.reject(Object.assign(new Error('aborted'), { name: 'TimeoutError' }));
      return outcome('valid', body.tid);
    });
    const [verdict] = await scanner.scan([unknownKid]);
    assert.deepEqual([verdict!.verdict, verdict!.reason, verdict!.source], ['reject', 'invalid_signature', 'offline']);
    reachable = true;
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.outcomes.valid], [1, 0, 1]);
    assert.deepEqual(
      seen.map((s) => s.body.signature_valid ?? null),
      [null, false, null],
      'plain online attempt, the report, then the plain body again',
    );
  });

  test('a scan in a journal written before turned_away existed: a rejection is uploaded as turned away', async () => {
    const storage = enrolledStorage(key);
    const legacy: Omit<QueuedScan, 'turned_away'> = {
      idempotency_key: crypto.randomUUID(),
      tid: 'T5',
      ticket_token: expired,
      send_token: true,
      scanned_at: new Date().toISOString(),
      gate_id: null,
      admitted_offline: false,
      verdict: 'reject',
      reason: 'expired',
      maybe_sent_plain: false,
    };
    storage.journal.push(JSON.stringify({ op: 'scan', scan: legacy }));
    const { scanner, seen } = await openScanner(storage, key, valid);
    await scanner.sync();
    assert.equal(seen[0]!.body.admitted_offline, false);
  });
});

describe('a rejected key (401) is not a ticket verdict', () => {
  test('sync stops with the 401 and every scan stays queued; nothing goes to refused.jsonl', async () => {
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, () => envelope(401, 'UNAUTHORIZED', 'key revoked'));
    await scanner.scan([tokens.T1!, tokens.T2!, expired], { offline: true });
    await assert.rejects(scanner.sync(), (error: unknown) => error instanceof IssuerHttpError && error.status === 401);
    assert.equal(scanner.queue.size, 3);
    assert.deepEqual(refusedLines(storage), []);
  });

  test('an online scan answered 401 shows no verdict and stays queued as turned away', async () => {
    let revoked = true;
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, (body) =>
      revoked ? envelope(401, 'UNAUTHORIZED', 'key revoked') : valid(body, []),
    );
    await assert.rejects(scanner.scan([tokens.T3!]), (error: unknown) => error instanceof IssuerHttpError);
    assert.equal(scanner.queue.size, 1);
    assert.equal(scanner.queue.admitted.has('T3'), false);
    revoked = false;
    const result = await scanner.sync();
    assert.equal(result.remaining, 0);
    assert.equal(seen.at(-1)!.body.admitted_offline, false, 'never a check-in of a holder the device did not admit');
  });
});
