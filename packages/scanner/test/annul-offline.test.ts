import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANNUL_CASES, type AnnulCase, DEFAULT_ANNUL_WINDOW_S } from '@ticket-issuer/protocol';
import { type MemoryStorage, type Scanner } from '../src/index.ts';
import { enrolledStorage, envelope, NO_RULES, openScanner } from './fake-issuer.ts';
import { claims, testKey, type TestKey } from './keys.ts';

/**
 * The device's own judgement of an annul (offline), on situations made like the shared table's cases:
 * where the holder was before the entry, whether the scan named was an entry, whether the annul
 * comes within the window, and whether the ticket moved since.
 */

const T0 = Date.parse('2026-06-01T18:00:00Z');

/** The event's rules for each situation before the entry: re-entry after an exit, or a wristband's `any`. */
const RULES = {
  unused: NO_RULES,
  out: { ...NO_RULES, reentry: true },
  inside: { ...NO_RULES, ticket_types: [{ ticket_type: 'GA', reentry: 'any', max_entries: 2 }] },
};

/** A scanner (offline: the issuer refuses every request) with the rules and a clock that tests move. */
async function device(key: TestKey, rules: object) {
  const storage: MemoryStorage = enrolledStorage(key);
  storage.files.set('rules.json', JSON.stringify(rules));
  const clock = { at: T0 };
  const { scanner } = await openScanner(storage, key, () => envelope(503, 'UNAVAILABLE'), {
    now: () => new Date(clock.at),
  });
  const tick = (seconds: number) => (clock.at += seconds * 1000);
  return { scanner, storage, tick };
}

const one = async (scanner: Scanner, token: string, exit = false) => {
  const [result] = exit
    ? await scanner.exit([token], { offline: true })
    : await scanner.scan([token], { offline: true });
  return result!;
};

/**
 * Builds the case's situation: the holder where `beforeEntry` says, then the entry; then what the
 * facts say (a later exit, the window passed); the key annulled is the entry's, or a scan that let no
 * one in. Returns that key.
 */
async function situation(scanner: Scanner, tick: (s: number) => void, token: string, other: string, c: AnnulCase) {
  if (c.beforeEntry !== 'unused') assert.equal((await one(scanner, token)).verdict, 'admit');
  if (c.beforeEntry === 'out') assert.equal((await one(scanner, token, true)).verdict, 'exit');
  tick(60);
  const entry = await one(scanner, token);
  assert.equal(entry.verdict, 'admit', `${c.name}: the entry`);
  let key = entry.idempotency_key!;
  if (!c.facts.isEntry) {
    // A genuine ticket of another event: scanned and queued, and nobody let in.
    const turnedAway = await one(scanner, other);
    assert.equal(turnedAway.reason, 'wrong_event');
    key = turnedAway.idempotency_key!;
  }
  tick(10);
  if (!c.facts.latest) assert.equal((await one(scanner, token, true)).verdict, 'exit');
  tick(c.facts.withinWindow ? 60 : DEFAULT_ANNUL_WINDOW_S);
  return key;
}

describe('an annul judged on the device, on the shared table’s cases', () => {
  for (const c of ANNUL_CASES) {
    test(c.name, async () => {
      const key = await testKey();
      const token = await key.sign(claims('T1'));
      const other = await key.sign(claims('T9', { eid: 'evt_OTHER' }));
      const { scanner, tick } = await device(key, RULES[c.beforeEntry]);
      const named = await situation(scanner, tick, token, other, c);
      const queued = scanner.queue.size;
      const result = await scanner.annul(named, { offline: true });
      if (c.outcome !== 'annulled') {
        assert.deepEqual(
          [result.annulled, result.source, !result.annulled && result.reason],
          [false, 'device', c.outcome],
        );
        assert.equal(scanner.queue.size, queued, 'nothing queued');
        return;
      }
      assert.deepEqual(result, { annulled: true, idempotency_key: named, tid: 'T1', source: 'queued' });
      assert.equal(scanner.queue.size, queued + 1, 'queued after the scan it undoes');
      assert.deepEqual(scanner.queue.items().at(-1), {
        action: 'annul',
        idempotency_key: named,
        tid: 'T1',
        annulled_at: new Date(T0 + 130_000).toISOString(),
        entry_at: new Date(T0 + 60_000).toISOString(),
        before: c.beforeEntry,
      });
      // The holder is back where they were, at once.
      if (c.after === 'unused') {
        assert.equal((await one(scanner, token, true)).reason, 'not_inside', 'not in');
        assert.equal((await one(scanner, token)).reason, 'valid', 'unused again: admitted again');
      } else if (c.after === 'out') {
        assert.equal((await one(scanner, token, true)).reason, 'not_inside', 'out again');
      } else {
        // A wristband's two entries of two: with one annulled, one more may come in.
        assert.equal((await one(scanner, token)).reason, 'valid', 'one entry fewer');
        assert.equal((await one(scanner, token)).reason, 'entry_limit_reached');
      }
    });
  }
});

describe('the device’s annul, besides the table', () => {
  test('by default the last admission; the same annul again answers again and queues nothing more', async () => {
    const key = await testKey();
    const { scanner } = await device(key, NO_RULES);
    const first = await one(scanner, await key.sign(claims('T1')));
    const last = await one(scanner, await key.sign(claims('T2')));
    await one(scanner, await key.sign(claims('T2'))); // already_used: not an admission
    const undone = await scanner.annul(undefined, { offline: true });
    assert.deepEqual(undone, { annulled: true, idempotency_key: last.idempotency_key, tid: 'T2', source: 'queued' });
    const size = scanner.queue.size;
    assert.deepEqual(await scanner.annul(undefined, { offline: true }), undone);
    assert.deepEqual(await scanner.annul(last.idempotency_key!.toUpperCase(), { offline: true }), undone);
    assert.equal(scanner.queue.size, size);
    assert.equal((await scanner.annul(first.idempotency_key!, { offline: true })).annulled, true);
  });

  test('a key the device never used is not_found; a device that admitted no one has nothing to annul', async () => {
    const key = await testKey();
    const { scanner } = await device(key, NO_RULES);
    const none = await scanner.annul(undefined, { offline: true });
    assert.deepEqual([none.annulled, none.idempotency_key, !none.annulled && none.reason], [false, null, 'not_found']);
    const unknown = await scanner.annul('0b7f8e0e-4f8e-4d1a-9a53-3c0c0e1a2b3c', { offline: true });
    assert.equal(!unknown.annulled && unknown.reason, 'not_found');
    await assert.rejects(scanner.annul('not-a-key'), { code: 'INVALID_OPTION' });
  });

  test('a later entry of the ticket on this device: not_latest', async () => {
    const key = await testKey();
    const { scanner, tick } = await device(key, RULES.inside);
    const token = await key.sign(claims('T1'));
    const first = await one(scanner, token);
    tick(30);
    assert.equal((await one(scanner, token)).reason, 'valid');
    const result = await scanner.annul(first.idempotency_key!, { offline: true });
    assert.equal(!result.annulled && result.reason, 'not_latest');
  });

  test('the window ends DEFAULT_ANNUL_WINDOW_S after the scan: at it an annul is taken, a second later not', async () => {
    const key = await testKey();
    const { scanner, tick } = await device(key, NO_RULES);
    const a = await one(scanner, await key.sign(claims('T1')));
    const b = await one(scanner, await key.sign(claims('T2')));
    tick(DEFAULT_ANNUL_WINDOW_S);
    assert.equal((await scanner.annul(b.idempotency_key!, { offline: true })).annulled, true);
    tick(1);
    const late = await scanner.annul(a.idempotency_key!, { offline: true });
    assert.equal(!late.annulled && late.reason, 'window_passed');
  });

  test('an annul survives a restart and a compaction of the journal', async () => {
    const key = await testKey();
    const { scanner, storage } = await device(key, NO_RULES);
    const token = await key.sign(claims('T1'));
    const entry = await one(scanner, token);
    await scanner.annul(undefined, { offline: true });
    await scanner.queue.compact(new Date(T0), DEFAULT_ANNUL_WINDOW_S);
    await scanner.close();
    const reopened = (await openScanner(storage, key, () => envelope(503, 'UNAVAILABLE'))).scanner;
    assert.equal(reopened.queue.isAnnulled(entry.idempotency_key!), true);
    assert.deepEqual(
      reopened.queue.items().map((item) => ('action' in item ? item.action : 'scan')),
      ['scan', 'annul'],
    );
    assert.equal((await one(reopened, token)).reason, 'valid');
  });
});
