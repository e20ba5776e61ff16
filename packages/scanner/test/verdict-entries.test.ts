import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Change } from '@ticket-issuer/protocol';
import { scanJson } from '../src/cli/format.ts';
import { Scanner } from '../src/index.ts';
import { discovery, enrolledStorage, json, NO_RULES, openScanner } from './fake-issuer.ts';
import { claims, EID, type TestKey, testKey } from './keys.ts';

/**
 * A verdict on an entry carries the ticket's `entries` (CONTRACT.md, fifth release: the comparison of
 * a device's offline verdict with the issuer's answer): offline the entries the device knows, the scan
 * itself included when admitted; online the issuer's count; and the CLI's `--json` line says it.
 */
const TID = '01JVERDICTENTRIES000000000';
let key: TestKey;
let token: string;
before(async () => {
  key = await testKey();
  token = await key.sign(claims(TID));
});

const entry = (at: string, idempotency_key: string): Change => ({
  type: 'checked_in',
  tid: TID,
  at,
  scanner_id: 'gate-a',
  gate_id: null,
  idempotency_key,
});

/** A declared type's rules, none set. */
const NO_RULES_TYPE = {
  valid_days: null,
  hours: null,
  max_entries: null,
  max_entries_per_day: null,
  min_minutes_between_entries: null,
  attention: false,
  checkin_text: null,
};

/** A scanner synced from a feed of these changes, under rules with re-entry `any` for GA. */
async function syncedOn(changes: Change[]) {
  const rules = { ...NO_RULES, ticket_types: [{ ...NO_RULES_TYPE, ticket_type: 'GA', reentry: 'any' }] };
  const fetchFake = (async (input: string | URL | Request) => {
    const url = String(input);
    if (url.includes('/changes')) return json(200, { changes, next_cursor: 'c1', has_more: false });
    if (url.endsWith('/rules')) return json(200, rules);
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    throw new Error(`unexpected request ${url}`);
  }) as typeof fetch;
  const scanner = await Scanner.open(enrolledStorage(key), {
    fetch: fetchFake,
    now: () => new Date('2026-06-01T12:00:00Z'),
  });
  assert.equal((await scanner.sync()).problem, null);
  return scanner;
}

describe('the verdict of an entry carries the ticket’s entries', () => {
  test('offline: the entries the feed told, and this one when admitted', async () => {
    const scanner = await syncedOn([entry('2026-06-01T10:00:00Z', 'k1'), entry('2026-06-01T11:00:00Z', 'k2')]);
    try {
      const [first, second] = await scanner.scan([token, token], { offline: true });
      assert.deepEqual([first!.reason, first!.entries], ['valid', 3]);
      assert.deepEqual([second!.reason, second!.entries], ['valid', 4]);
      assert.equal(scanJson(first!).entries, 3);
    } finally {
      await scanner.close();
    }
  });

  test('online: the count the issuer answers', async () => {
    const answer = json(200, { status: 'already_used', ticket: { tid: TID, eid: EID, entries: 2 } });
    const { scanner } = await openScanner(enrolledStorage(key), key, () => answer);
    try {
      const [result] = await scanner.scan([token]);
      assert.deepEqual([result!.source, result!.reason, result!.entries], ['issuer', 'already_used', 2]);
      assert.equal(scanJson(result!).entries, 2);
    } finally {
      await scanner.close();
    }
  });
});
