import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Change } from '@ticket-issuer/protocol';
import { type MemoryStorage, Scanner } from '../src/index.ts';
import { discovery, enrolledStorage, envelope, json, NO_RULES } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

/**
 * The rules that count event days, on the device: the event's days (`event_days` of the rules answer)
 * bound a ticket without days of its own; they are kept with the rules, and an issuer from before
 * them (no field) bounds nothing.
 */
let key: TestKey;
before(async () => {
  key = await testKey();
});

/** A weekend in Berlin: Friday 3 to Sunday 5 July 2026. */
const WEEKEND = { ...NO_RULES, timezone: 'Europe/Berlin', event_days: { first: '2026-07-03', last: '2026-07-05' } };

/** An issuer serving `rules` and a feed of `changes`; it takes no scan (every scan here is offline). */
function issuerFetch(rules: unknown, changes: Change[] = []): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = String(input);
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    if (url.includes('/changes')) return json(200, { changes, next_cursor: `c${changes.length}`, has_more: false });
    if (url.endsWith('/rules')) return json(200, rules);
    return envelope(503, 'UNAVAILABLE');
  }) as typeof fetch;
}

const clock = { now: new Date('2026-07-02T12:00:00Z') };
const open = (storage: MemoryStorage, rules: unknown, changes: Change[] = []) =>
  Scanner.open(storage, { fetch: issuerFetch(rules, changes), now: () => clock.now });
const token = (tid: string) => key.sign(claims(tid));

describe('the event’s days on the device', () => {
  test('outside them a ticket without days of its own is not valid now; inside them it is; kept across a restart', async () => {
    const storage = enrolledStorage(key);
    let scanner = await open(storage, WEEKEND);
    assert.equal((await scanner.sync()).problem, null);
    clock.now = new Date('2026-07-02T21:59:00Z'); // Thursday 23:59 in Berlin
    const [early] = await scanner.scan([await token('01JDAYS000000000000000000A')], { offline: true });
    assert.deepEqual([early!.verdict, early!.reason], ['reject', 'not_valid_now']);
    assert.deepEqual(
      [early!.refusal?.reason, (early!.refusal as { event_days?: unknown }).event_days],
      ['not_valid_now', WEEKEND.event_days],
    );
    clock.now = new Date('2026-07-02T22:00:00Z'); // Friday 00:00
    assert.equal(
      (await scanner.scan([await token('01JDAYS000000000000000000A')], { offline: true }))[0]!.verdict,
      'admit',
    );
    await scanner.close();

    scanner = await open(storage, WEEKEND);
    clock.now = new Date('2026-07-05T22:00:00Z'); // Monday 00:00, read from the rules kept
    const [late] = await scanner.scan([await token('01JDAYS000000000000000000B')], { offline: true });
    assert.equal(late!.reason, 'not_valid_now');
    await scanner.close();
  });

  test('an issuer from before the field bounds nothing', async () => {
    const scanner = await open(enrolledStorage(key), { ...NO_RULES, timezone: 'Europe/Berlin' });
    await scanner.sync();
    clock.now = new Date('2026-08-01T12:00:00Z');
    assert.equal(
      (await scanner.scan([await token('01JDAYS000000000000000000C')], { offline: true }))[0]!.verdict,
      'admit',
    );
    await scanner.close();
  });

  test('malformed event days are a sync problem, and the rules known before stay', async () => {
    const storage = enrolledStorage(key);
    const scanner = await open(storage, WEEKEND);
    await scanner.sync();
    await scanner.close();
    const again = await open(storage, { ...WEEKEND, event_days: { first: '2026-07-05', last: '2026-07-03' } });
    assert.match(String((await again.sync()).problem?.message), /event_days/);
    clock.now = new Date('2026-07-06T12:00:00Z');
    assert.equal(
      (await again.scan([await token('01JDAYS000000000000000000D')], { offline: true }))[0]!.reason,
      'not_valid_now',
    );
    await again.close();
  });
});

describe('max_days on the device', () => {
  const pass = (rules: Record<string, unknown>) => ({
    ...WEEKEND,
    ticket_types: [
      {
        ticket_type: 'GA',
        valid_days: null,
        hours: null,
        max_entries: null,
        max_entries_per_day: null,
        reentry: 'any',
        min_minutes_between_entries: null,
        attention: false,
        checkin_text: null,
        ...rules,
      },
    ],
  });

  test('its own offline admissions count their days: the same day again yes, another day no', async () => {
    const scanner = await open(enrolledStorage(key), pass({ max_days: 1 }));
    await scanner.sync();
    const ticket = await token('01JDAYS000000000000000000E');
    const at = async (iso: string) => {
      clock.now = new Date(iso);
      return (await scanner.scan([ticket], { offline: true }))[0]!;
    };
    assert.equal((await at('2026-07-03T10:00:00Z')).verdict, 'admit');
    assert.equal((await at('2026-07-03T20:00:00Z')).verdict, 'admit', 'Friday again');
    const saturday = await at('2026-07-04T10:00:00Z');
    assert.equal(saturday.reason, 'entry_limit_reached');
    const refusal = saturday.refusal as { max_days?: number; days_used?: number };
    assert.deepEqual([refusal.max_days, refusal.days_used], [1, 1]);
    await scanner.close();
  });

  test('a type without the field (an issuer from before it) has no such limit; a malformed one is a sync problem', async () => {
    const storage = enrolledStorage(key);
    const older = await open(storage, pass({}));
    assert.equal((await older.sync()).problem, null);
    assert.equal(JSON.parse(storage.files.get('rules.json')!).ticket_types[0].max_days, null, 'kept as none');
    await older.close();
    const wrong = await open(storage, pass({ max_days: 0 }));
    assert.match(String((await wrong.sync()).problem?.message), /ticket type/);
    await wrong.close();
  });
});
