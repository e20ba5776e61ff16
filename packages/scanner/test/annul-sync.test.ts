import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { CheckInRequestBody } from '@ticket-issuer/protocol';
import { FeedKnowledge } from '../src/index.ts';
import {
  enrolledStorage,
  envelope,
  fetchFailure,
  json,
  openScanner,
  outcome,
  refusedLines,
  type Handler,
  type Seen,
} from './fake-issuer.ts';
import { EID, type TestKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};

before(async () => {
  ({ key, tokens } = await ticketFixture());
});

type AnnulBody = { idempotency_key: string; annulled_at: string; eid: string; scanner_id: string };
const isAnnulBody = (body: unknown): body is AnnulBody => typeof (body as AnnulBody).annulled_at === 'string';

/**
 * A fake issuer that keeps the entries it answered `valid` (by key) and annuls those it knows: an
 * unknown key is 404, as the issuer answers; `refuse` gives a reason to answer 409 with instead.
 */
function issuer(refuse: string | null = null) {
  const entries = new Map<string, string>();
  const annulled: string[] = [];
  const handler: Handler = (body) => {
    if (!isAnnulBody(body)) {
      const known = [...entries.values()].includes(body.tid) && !annulled.some((k) => entries.get(k) === body.tid);
      if (known) return outcome('already_used', body.tid);
      entries.set(body.idempotency_key, body.tid);
      return outcome('valid', body.tid);
    }
    const tid = entries.get(body.idempotency_key);
    if (tid === undefined)
      return envelope(404, 'NOT_FOUND', 'this scanner recorded no scan under this idempotency key');
    if (refuse !== null) {
      return json(409, { error: { code: 'CONFLICT', message: 'refused', details: { reason: refuse } } });
    }
    annulled.push(body.idempotency_key);
    return json(200, { status: 'annulled', ticket: { tid, eid: EID, checked_in_at: null, entries: 0 } });
  };
  return { handler, annulled };
}

const annulUrls = (seen: Seen[]) => seen.filter((s) => s.url.endsWith('/check-in/annul'));

describe('a queued annul at sync', () => {
  test('goes up in the same upload after the scan it undoes, and the answers are recorded', async () => {
    const fake = issuer();
    const { scanner, uploadsSeen } = await openScanner(enrolledStorage(key), key, fake.handler, {}, true);
    const [entry] = await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    await scanner.annul(entry!.idempotency_key!, { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [3, 0, 0]);
    assert.equal(result.outcomes.annulled, 1);
    assert.equal(uploadsSeen.length, 1);
    const sent = uploadsSeen[0]! as unknown as Record<string, unknown>[];
    assert.deepEqual(
      sent.map((s) => [s.action, s.idempotency_key]),
      [
        ['check_in', entry!.idempotency_key],
        ['annul', entry!.idempotency_key],
        ['check_in', sent[2]!.idempotency_key],
      ],
    );
    assert.deepEqual(Object.keys(sent[1]!).sort(), ['action', 'annulled_at', 'eid', 'idempotency_key', 'scanner_id']);
    assert.deepEqual(fake.annulled, [entry!.idempotency_key]);
    assert.equal(scanner.queue.isAnnulled(entry!.idempotency_key!), true);
    // Answered: the device still counts it undone (the issuer's answer, until the feed has it).
    assert.equal((await scanner.scan([tokens.T1!], { offline: true }))[0]!.reason, 'valid');
  });

  test('an annul whose entry went up earlier ends its upload: a later scan of the ticket goes in the next one', async () => {
    const fake = issuer();
    const { scanner, uploadsSeen } = await openScanner(enrolledStorage(key), key, fake.handler, {}, true);
    const [entry] = await scanner.scan([tokens.T1!]);
    assert.equal(entry!.source, 'issuer');
    await scanner.annul(undefined, { offline: true });
    const [again] = await scanner.scan([tokens.T1!, tokens.T2!], { offline: true });
    assert.deepEqual([again!.verdict, again!.reason], ['admit', 'valid'], 'unused again on the device');
    await scanner.sync();
    assert.deepEqual(
      uploadsSeen.map((upload) => upload.map((s) => [s.action, s.tid ?? null])),
      [
        [['annul', null]],
        [
          ['check_in', 'T1'],
          ['check_in', 'T2'],
        ],
      ],
    );
    assert.equal(fake.annulled.length, 1);
  });

  test('a refusal (409 with its reason, or 404) is kept in refused.jsonl, and the entry counts again', async () => {
    const fake = issuer('not_latest');
    const storage = enrolledStorage(key);
    const { scanner } = await openScanner(storage, key, fake.handler, {}, true);
    const [entry] = await scanner.scan([tokens.T1!], { offline: true });
    await scanner.annul(undefined, { offline: true });
    await scanner.annul('0b7f8e0e-4f8e-4d1a-9a53-3c0c0e1a2b3c', { offline: true }); // not_found: nothing queued
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.refused, result.remaining], [1, 1, 0]);
    const [line] = refusedLines(storage) as unknown as { error: { code: string; details: object }; scan: object }[];
    assert.equal(line!.error.code, 'CONFLICT');
    assert.deepEqual(line!.error.details, { reason: 'not_latest' });
    assert.deepEqual((line!.scan as { action: string; idempotency_key: string }).action, 'annul');
    assert.equal(scanner.queue.isAnnulled(entry!.idempotency_key!), false);
    assert.equal((await scanner.scan([tokens.T1!], { offline: true }))[0]!.reason, 'already_used');
  });

  test('to an issuer without uploads, the annul goes to the annul endpoint after its scan', async () => {
    const fake = issuer();
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, fake.handler, {}, false);
    await scanner.scan([tokens.T1!], { offline: true });
    await scanner.annul(undefined, { offline: true });
    const result = await scanner.sync();
    assert.deepEqual([result.uploaded, result.remaining], [2, 0]);
    assert.deepEqual(
      seen.map((s) => s.url.replace(/^.*\/tickets\//, '')),
      ['check-in', 'check-in/annul'],
    );
  });
});

describe('an annul online', () => {
  test('the issuer’s answer decides: annulled, or its refusal with the reason', async () => {
    const fake = issuer();
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, fake.handler);
    const [entry] = await scanner.scan([tokens.T1!]);
    const done = await scanner.annul();
    assert.deepEqual(done, { annulled: true, idempotency_key: entry!.idempotency_key, tid: 'T1', source: 'issuer' });
    const body = annulUrls(seen)[0]!.body as unknown as AnnulBody;
    assert.deepEqual([body.eid, body.idempotency_key], [EID, entry!.idempotency_key]);
    assert.equal(scanner.queue.size, 0);
    assert.equal((await scanner.scan([tokens.T1!], { offline: true }))[0]!.reason, 'valid');

    const refusing = issuer('window_passed');
    const other = await openScanner(enrolledStorage(key), key, refusing.handler);
    await other.scanner.scan([tokens.T2!]);
    const refused = await other.scanner.annul();
    assert.deepEqual(
      [refused.annulled, refused.source, !refused.annulled && refused.reason, !refused.annulled && refused.message],
      [false, 'issuer', 'window_passed', 'refused'],
    );
    assert.equal((await other.scanner.annul('0b7f8e0e-4f8e-4d1a-9a53-3c0c0e1a2b3c')).annulled, false);
  });

  test('an entry still queued goes up first; no answer leaves the annul to the device, queued', async () => {
    const fake = issuer();
    let down = true;
    const handler: Handler = (body, seen) => {
      if (down) throw fetchFailure('ECONNREFUSED');
      return fake.handler(body as CheckInRequestBody, seen);
    };
    const { scanner, seen } = await openScanner(enrolledStorage(key), key, handler);
    const [entry] = await scanner.scan([tokens.T1!]);
    assert.equal(entry!.source, 'offline');
    const queued = await scanner.annul();
    assert.deepEqual(queued, { annulled: true, idempotency_key: entry!.idempotency_key, tid: 'T1', source: 'queued' });
    down = false;
    // Online again: the queued entry, then the queued annul, go first; the annul is then answered.
    const again = await scanner.annul(entry!.idempotency_key!);
    assert.equal(again.source, 'issuer');
    assert.deepEqual(
      seen.slice(-2).map((s) => s.url.replace(/^.*\/tickets\//, '')),
      ['check-in', 'check-in/annul'],
    );
    assert.equal(scanner.queue.size, 0);
  });
});

describe('the feed’s annulled change', () => {
  const at = (minute: number) => `2026-06-01T18:${String(minute).padStart(2, '0')}:00Z`;
  const entered = (tid: string, minute: number) =>
    ({ type: 'checked_in', tid, at: at(minute), scanner_id: 's', gate_id: 'north' }) as const;
  const left = (tid: string, minute: number) =>
    ({ type: 'checked_out', tid, at: at(minute), scanner_id: 's', gate_id: null }) as const;
  const annulled = (tid: string, minute: number) =>
    ({ type: 'annulled', tid, idempotency_key: 'k', scanner_id: 's', at: at(minute) }) as const;

  test('drops the ticket’s latest entry and puts the holder back: out after a re-entry, unused after the only one', () => {
    const knowledge = new FeedKnowledge();
    knowledge.apply([entered('A', 1), left('A', 2), entered('A', 3), annulled('A', 4)]);
    assert.deepEqual(
      [knowledge.checkedIn.has('A'), knowledge.out.has('A'), knowledge.entries.get('A')],
      [true, true, [at(1)]],
    );
    assert.deepEqual(knowledge.checkIns.get('A'), { at: at(1), gate_id: null });
    knowledge.apply([entered('B', 1), entered('B', 2), annulled('B', 3)]);
    assert.deepEqual([knowledge.out.has('B'), knowledge.entries.get('B')], [false, [at(1)]], 'a wristband: inside');
    knowledge.apply([entered('C', 1), annulled('C', 2)]);
    assert.deepEqual(
      [knowledge.checkedIn.has('C'), knowledge.out.has('C'), knowledge.entries.has('C'), knowledge.checkIns.has('C')],
      [false, false, false, false],
    );
    // Kept across a restart: the wristband's first entry annulled in turn leaves it unused.
    const read = FeedKnowledge.parse(JSON.stringify(knowledge), 'knowledge.json');
    read.apply([annulled('B', 5)]);
    assert.deepEqual([read.checkedIn.has('B'), read.out.has('B'), read.entries.has('B')], [false, false, false]);
    assert.deepEqual([read.checkedIn.has('A'), read.out.has('A')], [true, true]);
  });

  test('a knowledge.json from before the moves were kept: its check-ins and exits stand for them', () => {
    const old = {
      cursor: 'c',
      last_sync_at: null,
      revoked: [],
      superseded: [],
      checked_in: ['A'],
      check_ins: [['A', at(3), null]],
      out: ['A'],
      entries: [['A', [at(1), at(3)]]],
    };
    const knowledge = FeedKnowledge.parse(JSON.stringify(old), 'knowledge.json');
    knowledge.apply([entered('A', 5), annulled('A', 6)]);
    assert.deepEqual([knowledge.out.has('A'), knowledge.entries.get('A')], [true, [at(1), at(3)]]);
    assert.throws(() => FeedKnowledge.parse(JSON.stringify({ ...old, moves: [['A', 'x']] }), 'knowledge.json'), {
      code: 'STATE_CORRUPT',
    });
  });
});
