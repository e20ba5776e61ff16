import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clockOffMinutes, correctedClock, dateHeaderInstant, type MemoryStorage, Scanner } from '../src/index.ts';
import { enrolledStorage, fakeFetch, json, NO_RULES, valid } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

/**
 * A device measures how far off its clock is at each sync of the rules (the answer's `server_time`,
 * else its `Date` header), stamps its scans and judges the rules by the corrected time, and says its
 * own clock (`sent_at`) on every upload.
 */

/** The scan time of the first item queued on a scanner. */
const stampOf = (scanner: Scanner) => (scanner.queue.items()[0] as { scanned_at?: string } | undefined)?.scanned_at;

const ISSUER_NOW = Date.parse('2026-06-01T18:00:00Z');
const TEN_MINUTES = 600_000;

describe('the corrected clock', () => {
  test('subtracts the measured offset; leaves the clock alone when unknown or within a second', () => {
    const device = () => new Date(ISSUER_NOW + TEN_MINUTES);
    assert.equal(correctedClock(device, () => TEN_MINUTES)().toISOString(), '2026-06-01T18:00:00.000Z');
    assert.equal(correctedClock(device, () => -TEN_MINUTES)().toISOString(), '2026-06-01T18:20:00.000Z');
    assert.equal(correctedClock(device, () => null)().toISOString(), '2026-06-01T18:10:00.000Z');
    assert.equal(correctedClock(device, () => 999)().toISOString(), '2026-06-01T18:10:00.000Z');
    assert.equal(correctedClock(device, () => 1000)().toISOString(), '2026-06-01T18:09:59.000Z');
  });

  test('reads the offset at each call: a new measurement takes effect at once', () => {
    let offset: number | null = null;
    const now = correctedClock(
      () => new Date(ISSUER_NOW),
      () => offset,
    );
    assert.equal(now().getTime(), ISSUER_NOW);
    offset = 5000;
    assert.equal(now().getTime(), ISSUER_NOW - 5000);
  });

  test('warns in whole minutes only past 2 minutes, either way', () => {
    assert.deepEqual(
      [null, 0, 119_000, 120_000, 121_000, -150_000, TEN_MINUTES, -TEN_MINUTES - 20_000].map(clockOffMinutes),
      [null, null, null, null, 2, 3, 10, 10],
    );
  });

  test('a Date header as an instant; none, or unreadable, is null', () => {
    assert.equal(dateHeaderInstant('Mon, 01 Jun 2026 18:00:00 GMT'), '2026-06-01T18:00:00.000Z');
    assert.equal(dateHeaderInstant(null), null);
    assert.equal(dateHeaderInstant('soon'), null);
  });
});

/** A scanner 10 minutes fast whose issuer answers `rules` (with `headers`) and takes uploads, recording them. */
async function fastDevice(key: TestKey, storage: MemoryStorage, rules: () => Response) {
  const clock = { at: ISSUER_NOW + TEN_MINUTES };
  const uploads: Record<string, unknown>[] = [];
  const plain = fakeFetch(key, valid, [], true);
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (url.endsWith('/rules')) return rules();
    if (url.endsWith('/api/v1/tickets/scans')) uploads.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return plain(input, init);
  }) as typeof fetch;
  const scanner = await Scanner.open(storage, { fetch: fetchVia, now: () => new Date(clock.at) });
  return { scanner, clock, uploads };
}

describe('a device whose clock runs 10 minutes fast', () => {
  test('stamps offline scans with the issuer’s time once a sync measured it, and uploads say its own clock', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const rules = () => json(200, { ...NO_RULES, server_time: new Date(ISSUER_NOW).toISOString() });
    const { scanner, clock, uploads } = await fastDevice(key, storage, rules);
    try {
      // Before any sync the device knows no better than its own clock.
      await scanner.scan([await key.sign(claims('T0'))], { offline: true });
      assert.equal(stampOf(scanner), '2026-06-01T18:10:00.000Z');
      assert.equal((await scanner.sync()).problem, null);
      assert.equal(scanner.status().clock_offset_s, 600);
      assert.equal(uploads[0]!.sent_at, '2026-06-01T18:10:00.000Z', 'the device’s own clock as it sent');

      clock.at += 30_000;
      await scanner.scan([await key.sign(claims('T1'))], { offline: true });
      assert.equal(stampOf(scanner), '2026-06-01T18:00:30.000Z', 'stamped by the corrected clock');
      clock.at += 5000;
      await scanner.sync();
      const scans = uploads[1]!.scans as { scanned_at: string }[];
      assert.deepEqual(
        [scans.map((s) => s.scanned_at), uploads[1]!.sent_at],
        [['2026-06-01T18:00:30.000Z'], '2026-06-01T18:10:35.000Z'],
      );
    } finally {
      await scanner.close();
    }
  });

  test('judges the rules by the corrected time: a ticket valid from 18:05 is not yet valid at 18:00', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const rules = () => json(200, { ...NO_RULES, server_time: new Date(ISSUER_NOW).toISOString() });
    const { scanner } = await fastDevice(key, storage, rules);
    try {
      await scanner.sync();
      const early = await key.sign({ ...claims('T2'), nbf: Math.floor((ISSUER_NOW + 300_000) / 1000) });
      const [verdict] = await scanner.scan([early], { offline: true });
      assert.deepEqual([verdict!.verdict, verdict!.reason], ['reject', 'not_valid_now']);
    } finally {
      await scanner.close();
    }
  });

  test('an issuer whose rules answer has no server_time: measured by its Date header', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const rules = () => json(200, NO_RULES, { date: new Date(ISSUER_NOW).toUTCString() });
    const { scanner } = await fastDevice(key, storage, rules);
    try {
      await scanner.sync();
      assert.equal(scanner.status().clock_offset_s, 600);
      await scanner.scan([await key.sign(claims('T3'))], { offline: true });
      assert.equal(stampOf(scanner), '2026-06-01T18:00:00.000Z');
    } finally {
      await scanner.close();
    }
  });
});
