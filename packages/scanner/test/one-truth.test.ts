import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type Change, defaultTicketTypeRules } from '@ticket-issuer/protocol';
import { Scanner } from '../src/index.ts';
import { discovery, enrolledStorage, json } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

/**
 * One truth for a holder on the device (CONTRACT.md, fifth release): after a sync, the offline verdict
 * applies the event's automatic exit itself, and an `annulled` change removes exactly the entry its
 * idempotency key names.
 */
const TID = '01JONETRUTH000000000000000';
let key: TestKey;
before(async () => {
  key = await testKey();
});

/** Rules of an event of UTC days from 06:00 with one declared type, Weekend. */
const rules = (autoExit: boolean, type: Record<string, unknown>) => ({
  gates: [],
  reentry: true,
  timezone: 'UTC',
  day_starts_at: '06:00',
  auto_exit: autoExit,
  ticket_types: [{ ...defaultTicketTypeRules('Weekend'), ...type }],
});

/** A scanner synced from a fake issuer serving this feed and these rules, scanning offline at `at`. */
async function offlineVerdict(changes: Change[], rulesAnswer: unknown, at: string) {
  const fetchFake = (async (input: string | URL | Request) => {
    const url = String(input);
    if (url.includes('/changes')) return json(200, { changes, next_cursor: 'c1', has_more: false });
    if (url.endsWith('/rules')) return json(200, rulesAnswer);
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    throw new Error(`unexpected request ${url}`);
  }) as typeof fetch;
  const scanner = await Scanner.open(enrolledStorage(key), { fetch: fetchFake, now: () => new Date(at) });
  try {
    assert.equal((await scanner.sync()).problem, null);
    const token = await key.sign(claims(TID, { ticket_type: 'Weekend' }));
    const [result] = await scanner.scan([token], { offline: true });
    return result!;
  } finally {
    await scanner.close();
  }
}

const entry = (at: string, key: string): Change => ({
  type: 'checked_in',
  tid: TID,
  at,
  scanner_id: 'gate-a',
  gate_id: null,
  idempotency_key: key,
});

describe('a synced device answers as the issuer', () => {
  test('last night’s holder is let in after the day start: the automatic exit counted them out', async () => {
    const feed = [entry('2026-06-01T23:00:00Z', 'k1')];
    const morning = '2026-06-02T08:00:00Z';
    assert.equal((await offlineVerdict(feed, rules(true, {}), morning)).reason, 'valid');
    // Without the automatic exit they are still inside.
    assert.equal((await offlineVerdict(feed, rules(false, {}), morning)).reason, 'already_used');
    // Before the day start they are inside either way.
    assert.equal((await offlineVerdict(feed, rules(true, {}), '2026-06-02T05:00:00Z')).reason, 'already_used');
  });

  test('an annulled change removes exactly the entry its key names, not the last in feed order', async () => {
    // k2 scanned at 10:05 arrived first; k1, scanned at 10:00 offline, arrived after it; k2 is undone.
    const feed: Change[] = [
      entry('2026-06-01T10:05:00Z', 'k2'),
      entry('2026-06-01T10:00:00Z', 'k1'),
      { type: 'annulled', tid: TID, idempotency_key: 'k2', scanner_id: 'gate-a', at: '2026-06-01T10:06:00Z' },
    ];
    const wristband = rules(false, { reentry: 'any', min_minutes_between_entries: 30 });
    // The entry left is k1's (10:00): thirty minutes later the holder may enter again.
    assert.equal((await offlineVerdict(feed, wristband, '2026-06-01T10:30:00Z')).reason, 'valid');
    assert.equal((await offlineVerdict(feed, wristband, '2026-06-01T10:29:00Z')).reason, 'too_soon');
  });

  test('presence follows scan time: an entry uploaded after a later-scanned exit leaves the holder out', async () => {
    const exit: Change = {
      type: 'checked_out',
      tid: TID,
      at: '2026-06-01T10:30:00Z',
      scanner_id: 'gate-a',
      gate_id: null,
    };
    // In at 10:00, out at 10:30, then an entry scanned at 10:20 offline arrives: the holder is out.
    const feed = [entry('2026-06-01T10:00:00Z', 'k1'), exit, entry('2026-06-01T10:20:00Z', 'k2')];
    const afterExit = rules(false, { reentry: 'after_exit' });
    assert.equal((await offlineVerdict(feed, afterExit, '2026-06-01T11:00:00Z')).reason, 'valid');
    // An entry scanned after the exit puts them inside, whatever the order it arrived in.
    const later = [entry('2026-06-01T10:00:00Z', 'k1'), exit, entry('2026-06-01T10:40:00Z', 'k3')];
    assert.equal((await offlineVerdict(later, afterExit, '2026-06-01T11:00:00Z')).reason, 'already_used');
    // Undoing the entry that followed the exit leaves the holder out, and the late entry does not put them back.
    const undone: Change[] = [
      ...later,
      { type: 'annulled', tid: TID, idempotency_key: 'k3', scanner_id: 'gate-a', at: '2026-06-01T10:41:00Z' },
      entry('2026-06-01T10:20:00Z', 'k2'),
    ];
    assert.equal((await offlineVerdict(undone, afterExit, '2026-06-01T11:00:00Z')).reason, 'valid');
  });
});
