import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { enroll, MemoryStorage, Scanner } from '../src/index.ts';
import { enrolledStorage, fakeFetch, json, NO_RULES, valid } from './fake-issuer.ts';
import { Issuer } from './issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

/**
 * The undo window is the issuer's: a device learns `annul_window_s` from the rules answer, judges an
 * offline undo by it as the issuer will at sync, and keeps its admissions at least that long. The
 * answer's `server_time` tells the device how far off its clock is.
 */

/** A device clock that tests move: it starts `behindS` seconds behind the real one (the issuer's). */
function deviceClock(behindS: number) {
  const clock = { at: Date.now() - behindS * 1000 };
  return { now: () => new Date(clock.at), tick: (seconds: number) => (clock.at += seconds * 1000) };
}

/** A device enrolled (and so synced once) on `issuer` for `eid`, reading `clock`. */
async function device(issuer: Issuer, eid: string, now: () => Date) {
  const storage = new MemoryStorage();
  await enroll(storage, await issuer.setupUri(eid), { now });
  return { storage, scanner: await Scanner.open(storage, { now }) };
}

const ticketStatus = async (issuer: Issuer, tid: string) =>
  (await issuer.admin<{ status: string }>('GET', `/admin/v1/tickets/${tid}`)).status;

describe('a device judges an undo by the issuer’s ANNUL_WINDOW_S (60 s)', () => {
  let issuer: Issuer;
  before(async () => {
    issuer = await Issuer.start({ ANNUL_WINDOW_S: '60' });
  });
  after(async () => {
    if (issuer?.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
    await issuer?.stop();
  });

  test('the device knows the window and how far its clock is from the issuer’s once it synced', async () => {
    const eid = await issuer.createEvent('Window and clock');
    const clock = deviceClock(120);
    const { scanner } = await device(issuer, eid, clock.now);
    try {
      const status = scanner.status();
      assert.equal(status.annul_window_s, 60);
      assert.ok(
        status.clock_offset_s !== null && Math.abs(status.clock_offset_s + 120) <= 2,
        `about 120 s behind: ${status.clock_offset_s}`,
      );
    } finally {
      await scanner.close();
    }
  });

  test('an offline undo 90 s after the admit: refused on the device with the issuer’s own reason, window_passed', async () => {
    const eid = await issuer.createEvent('Too late to undo');
    const [ticket] = await issuer.issue(eid, 1);
    // The device's clock agrees with the issuer's at the sync; it then runs 90 s slow for the admit (no
    // sync tells it), and is right again for the undo: on both clocks the undo comes 90 s after the admit.
    // (A device that knows its offset stamps by the corrected time: see the clock tests.)
    const clock = deviceClock(0);
    const { scanner } = await device(issuer, eid, clock.now);
    try {
      clock.tick(-90);
      const [admit] = await scanner.scan([ticket!.token], { offline: true });
      assert.equal(admit!.verdict, 'admit');
      clock.tick(90);
      const queued = scanner.queue.size;
      const offline = await scanner.annul(admit!.idempotency_key!, { offline: true });
      assert.deepEqual(
        [offline.annulled, offline.source, !offline.annulled && offline.reason],
        [false, 'device', 'window_passed'],
      );
      assert.equal(scanner.queue.size, queued, 'nothing queued');
      // The issuer, told of the entry and asked the same undo at the same moment, says the same.
      assert.equal((await scanner.sync()).remaining, 0);
      const online = await scanner.annul(admit!.idempotency_key!);
      assert.deepEqual(
        [online.annulled, online.source, !online.annulled && online.reason],
        [false, 'issuer', 'window_passed'],
      );
      assert.equal(await ticketStatus(issuer, ticket!.tid), 'checked_in');
    } finally {
      await scanner.close();
    }
  });

  test('an offline undo 30 s after the admit: queued on the device, and the issuer takes it at sync', async () => {
    const eid = await issuer.createEvent('Undone in time');
    const [ticket] = await issuer.issue(eid, 1);
    const clock = deviceClock(300);
    const { scanner } = await device(issuer, eid, clock.now);
    try {
      const [admit] = await scanner.scan([ticket!.token], { offline: true });
      clock.tick(30);
      const undone = await scanner.annul(admit!.idempotency_key!, { offline: true });
      assert.deepEqual([undone.annulled, undone.source], [true, 'queued']);
      const synced = await scanner.sync();
      assert.deepEqual([synced.uploaded, synced.refused, synced.outcomes.annulled], [2, 0, 1]);
      assert.equal(await ticketStatus(issuer, ticket!.tid), 'valid', 'unused again on the issuer');
    } finally {
      await scanner.close();
    }
  });
});

describe('a device keeps its admissions as long as the issuer’s window (3600 s, past the default 900)', () => {
  let issuer: Issuer;
  before(async () => {
    issuer = await Issuer.start({ ANNUL_WINDOW_S: '3600' });
  });
  after(async () => {
    if (issuer?.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
    await issuer?.stop();
  });

  test('an admit 1200 s old survives a compaction of the journal and is undone offline, then by the issuer', async () => {
    const eid = await issuer.createEvent('Long undo window');
    const tickets = await issuer.issue(eid, 80);
    const clock = deviceClock(1500);
    const { storage, scanner } = await device(issuer, eid, clock.now);
    try {
      // The first admission, then enough others that the sync compacts the journal.
      const [first] = await scanner.scan([tickets[0]!.token], { offline: true });
      await scanner.scan(
        tickets.slice(1).map((t) => t.token),
        { offline: true },
      );
      clock.tick(1200);
      const lines = storage.journal.length;
      assert.deepEqual([(await scanner.sync()).remaining, scanner.queue.size], [0, 0]);
      assert.ok(storage.journal.length < lines, `compacted: ${lines} lines, then ${storage.journal.length}`);
      const undone = await scanner.annul(first!.idempotency_key!, { offline: true });
      assert.deepEqual([undone.annulled, undone.source], [true, 'queued']);
      const synced = await scanner.sync();
      assert.deepEqual([synced.refused, synced.outcomes.annulled], [0, 1]);
      assert.equal(await ticketStatus(issuer, tickets[0]!.tid), 'valid');
    } finally {
      await scanner.close();
    }
  });
});

describe('the window and the clock as the device keeps them', () => {
  const T0 = Date.parse('2026-06-01T18:00:00Z');

  /** A scanner whose issuer answers `rules` on its rules route (and nothing on the feed), at `clock.at`. */
  async function withRules(storage: MemoryStorage, key: TestKey, rules: () => object, clock: { at: number }) {
    const plain = fakeFetch(key, valid);
    const fetchVia = (async (input: string | URL | Request, init?: RequestInit) =>
      String(input).endsWith('/rules') ? json(200, rules()) : plain(input, init)) as typeof fetch;
    return Scanner.open(storage, { fetch: fetchVia, now: () => new Date(clock.at) });
  }

  test('never synced, or synced with an issuer that does not say: the default window, the clock not compared', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const clock = { at: T0 };
    const scanner = await withRules(storage, key, () => NO_RULES, clock);
    assert.deepEqual([scanner.status().annul_window_s, scanner.status().clock_offset_s], [900, null]);
    assert.equal((await scanner.sync()).problem, null);
    assert.deepEqual([scanner.status().annul_window_s, scanner.status().clock_offset_s], [900, null]);
    await scanner.close();
  });

  test('kept in rules.json with the device’s own time, and read again after a restart', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const clock = { at: T0 };
    const rules = { ...NO_RULES, annul_window_s: 60, server_time: '2026-06-01T17:58:30Z' };
    let scanner = await withRules(storage, key, () => rules, clock);
    assert.equal((await scanner.sync()).problem, null);
    const kept = JSON.parse(storage.files.get('rules.json')!) as Record<string, unknown>;
    assert.deepEqual(
      [kept.annul_window_s, kept.server_time, kept.device_time],
      [60, '2026-06-01T17:58:30Z', '2026-06-01T18:00:00.000Z'],
    );
    await scanner.close();
    scanner = await withRules(storage, key, () => rules, clock);
    assert.deepEqual([scanner.status().annul_window_s, scanner.status().clock_offset_s], [60, 90], '90 s ahead');
    // The window judges: 61 s after an admit is too late.
    const [admit] = await scanner.scan([await key.sign(claims('T1'))], { offline: true });
    clock.at += 61_000;
    const late = await scanner.annul(admit!.idempotency_key!, { offline: true });
    assert.equal(!late.annulled && late.reason, 'window_passed');
    await scanner.close();
  });

  test('a malformed window or clock is a sync problem, and the rules known before stay', async () => {
    const key = await testKey();
    const storage = enrolledStorage(key);
    const clock = { at: T0 };
    const good: Record<string, unknown> = { ...NO_RULES, annul_window_s: 60, server_time: '2026-06-01T18:00:00Z' };
    let answer = good;
    const scanner = await withRules(storage, key, () => answer, clock);
    await scanner.sync();
    for (const [bad, field] of [
      [{ annul_window_s: 0 }, 'annul_window_s'],
      [{ annul_window_s: '60' }, 'annul_window_s'],
      [{ server_time: 'yesterday' }, 'server_time'],
    ] as const) {
      answer = { ...good, ...bad };
      assert.match(String((await scanner.sync()).problem?.message), new RegExp(field));
      assert.deepEqual([scanner.status().annul_window_s, scanner.status().clock_offset_s], [60, 0]);
    }
    await scanner.close();
  });
});
