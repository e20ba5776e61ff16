import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { STATE_FILES } from '../src/index.ts';
import { enrolledStorage, fetchFailure, json, openScanner } from './fake-issuer.ts';
import { EID, type TestKey, ticketFixture } from './keys.ts';

let key: TestKey;
let tokens: Record<string, string> = {};

before(async () => {
  ({ key, tokens } = await ticketFixture());
});

test('an online verdict carries the holder and type of the issuer’s answer, and when an used ticket was used', async () => {
  const at = '2026-11-25T18:02:00.000Z';
  const { scanner } = await openScanner(enrolledStorage(key), key, (body) =>
    json(200, {
      status: 'already_used',
      ticket: { tid: body.tid, eid: EID, holder_name: 'Ada Lovelace', ticket_type: 'VIP', checked_in_at: at },
    }),
  );
  const [result] = await scanner.scan([tokens.T1!]);
  assert.deepEqual(result!.ticket, {
    holder_name: 'Ada Lovelace',
    ticket_type: 'VIP',
    checked_in_at: at,
    checked_in_gate: null,
  });
});

test('an offline verdict knows the signed type, and where this device or the feed checked the ticket in', async () => {
  const storage = enrolledStorage(key);
  const fed = '2026-11-25T17:00:00.000Z';
  const knowledge = JSON.parse(storage.files.get(STATE_FILES.knowledge) ?? 'null') ?? {
    cursor: null,
    last_sync_at: null,
    revoked: [],
    superseded: [],
    checked_in: [],
  };
  knowledge.checked_in = ['T2'];
  knowledge.check_ins = [['T2', fed, 'north']];
  storage.files.set(STATE_FILES.knowledge, JSON.stringify(knowledge));
  const { scanner } = await openScanner(storage, key, () => Promise.reject(fetchFailure('ECONNREFUSED')));

  const [admitted] = await scanner.scan([tokens.T1!], { offline: true });
  assert.equal(admitted!.verdict, 'admit');
  assert.deepEqual(admitted!.ticket, {
    holder_name: null,
    ticket_type: 'GA',
    checked_in_at: null,
    checked_in_gate: null,
  });

  const [again] = await scanner.scan([tokens.T1!], { offline: true });
  assert.equal(again!.reason, 'already_used');
  assert.equal(again!.ticket!.checked_in_at, scanner.queue.pending()[0]!.scanned_at);

  const [byFeed] = await scanner.scan([tokens.T2!], { offline: true });
  assert.equal(byFeed!.reason, 'already_used');
  assert.deepEqual(byFeed!.ticket, {
    holder_name: null,
    ticket_type: 'GA',
    checked_in_at: fed,
    checked_in_gate: 'north',
  });
});

test('the feed’s check-in places survive the knowledge file, and a malformed list is named', async () => {
  const { FeedKnowledge } = await import('../src/index.ts');
  const knowledge = new FeedKnowledge();
  knowledge.apply([{ type: 'checked_in', tid: 'T9', at: '2026-11-25T10:00:00.000Z', scanner_id: 's', gate_id: null }]);
  const again = FeedKnowledge.parse(JSON.stringify(knowledge), 'knowledge.json');
  assert.deepEqual(again.checkIns.get('T9'), { at: '2026-11-25T10:00:00.000Z', gate_id: null });
  assert.throws(
    () =>
      FeedKnowledge.parse(JSON.stringify({ ...knowledge.toJSON(), check_ins: [['T9', 5, null]] }), 'knowledge.json'),
    /check_ins/,
  );
});
