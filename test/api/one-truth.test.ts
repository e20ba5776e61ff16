import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { adminCall, enrollScanner, testIssuer } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import type { TestIssuer } from '../helpers/app.ts';

/**
 * One truth for a holder (CONTRACT.md, fifth release), through the HTTP API on both stores: every
 * `checked_in` change names its entry's idempotency key; an offline admission counts whatever its
 * answer; the automatic exit applies at the scan itself and to entries uploaded after the day start
 * they missed; a replayed scan writes no second scan-log line.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An event of 1 June 2026 onwards, UTC days from 06:00, with these settings, one ticket and a scanner. */
async function festival(t: TestIssuer, { reentry, ...settings }: Json) {
  const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
    name: 'Three Days',
    event_date: '2026-06-01T16:00:00Z',
    day_starts_at: '06:00',
    ...settings,
  });
  if (reentry !== undefined) await adminCall(t.app, 'PATCH', `/admin/v1/events/${eid}`, { reentry });
  const scannerId = randomUUID();
  const { apiKey } = await enrollScanner(t.app, eid, scannerId);
  const ticket = async () =>
    (
      await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Ada',
        ticket_type: 'Weekend',
      })
    ).tid;
  const call = async (method: 'GET' | 'POST', url: string, payload?: Json) => {
    const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${apiKey}` }, payload });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const scan = (tid: string, scannedAt: string, extra: Json = {}) => ({
    tid,
    eid,
    scanned_at: scannedAt,
    scanner_id: scannerId,
    idempotency_key: randomUUID(),
    ...extra,
  });
  const upload = async (scans: Json[]) => (await call('POST', '/api/v1/tickets/scans', { scans })).body.results;
  const feed = async () => (await call('GET', `/api/v1/events/${eid}/changes?limit=1000`)).body.changes as Json[];
  const log = async () =>
    (await adminCall<{ scans: Json[] }>(t.app, 'GET', `/admin/v1/events/${eid}/scans?limit=1000`)).scans;
  const occupancy = () => adminCall<Json>(t.app, 'GET', `/admin/v1/events/${eid}/occupancy`);
  const status = async (tid: string) => (await call('GET', `/api/v1/tickets/${tid}/status`)).body;
  return { eid, apiKey, ticket, call, scan, upload, feed, log, occupancy, status };
}

await eachBackend('one truth for a holder', ({ it: itOn, issuer }) => {
  itOn('every checked_in change carries its entry’s idempotency key', async () => {
    const t = issuer();
    t.clock.set('2026-06-01T18:00:00Z');
    const f = await festival(t, {});
    const tid = await f.ticket();
    const entry = f.scan(tid, '2026-06-01T18:00:00Z');
    assert.equal((await f.call('POST', '/api/v1/tickets/check-in', entry)).status, 200);
    const [change] = (await f.feed()).filter((c) => c.type === 'checked_in');
    assert.equal(change!.idempotency_key, entry.idempotency_key);
  });

  itOn('an offline admission answered already_used still counts an entry and the holder inside', async () => {
    const t = issuer();
    t.clock.set('2026-06-01T18:10:00Z');
    const f = await festival(t, {});
    const tid = await f.ticket();
    await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-01T18:00:00Z'));
    await f.call('POST', '/api/v1/tickets/check-out', f.scan(tid, '2026-06-01T18:02:00Z'));
    assert.equal((await f.occupancy()).inside, 0);
    const [late] = await f.upload([
      { action: 'check_in', ...f.scan(tid, '2026-06-01T18:05:00Z', { admitted_offline: true }) },
    ]);
    assert.equal(late.status_code, 200);
    assert.equal(late.body.status, 'already_used');
    assert.equal(late.body.ticket.entries, 2, 'the admission counts itself');
    assert.equal((await f.status(tid)).inside, true, 'they went in');
    assert.equal((await f.status(tid)).entries, 2);
    assert.equal((await f.occupancy()).inside, 1);
  });

  itOn(
    'presence follows scan time: an admission uploaded behind a later-scanned exit leaves the holder out',
    async () => {
      const t = issuer();
      t.clock.set('2026-06-01T18:20:00Z');
      const f = await festival(t, { reentry: true });
      const tid = await f.ticket();
      await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-01T18:00:00Z'));
      await f.call('POST', '/api/v1/tickets/check-out', f.scan(tid, '2026-06-01T18:10:00Z'));
      // Another gate let them in again at 18:05, offline, and uploads it after the 18:10 exit.
      const [late] = await f.upload([
        { action: 'check_in', ...f.scan(tid, '2026-06-01T18:05:00Z', { admitted_offline: true }) },
      ]);
      assert.equal(late.status_code, 200);
      assert.equal(late.body.ticket.entries, 2);
      const now = await f.status(tid);
      assert.equal(now.inside, false, 'the 18:10 exit came after it');
      assert.equal(now.entries, 2, 'the admission still counts');
      assert.equal((await f.occupancy()).inside, 0);
      const moves = (await f.feed()).filter((c) => c.tid === tid).map((c) => [c.type, c.at]);
      assert.deepEqual(moves, [
        ['checked_in', '2026-06-01T18:00:00Z'],
        ['checked_out', '2026-06-01T18:10:00Z'],
        ['checked_in', '2026-06-01T18:05:00Z'],
      ]);
      // They are let in again as anyone who went out.
      const again = await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-01T18:20:00Z'));
      assert.equal(again.body.status, 'valid');
      assert.equal((await f.occupancy()).inside, 1);
    },
  );

  itOn(
    'a holder inside since before the day start is out at the scan, before the automatic exit is written',
    async () => {
      const t = issuer();
      t.clock.set('2026-06-01T22:00:00Z');
      const f = await festival(t, { auto_exit: true, reentry: true });
      const tid = await f.ticket();
      assert.equal((await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-01T22:00:00Z'))).status, 200);
      // The next morning, at the day start, before any instance made the day's exits.
      t.clock.set('2026-06-02T06:00:30Z');
      const again = await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-02T06:00:30Z'));
      assert.equal(again.body.status, 'valid', JSON.stringify(again.body));
      assert.equal(again.body.ticket.entries, 2);
    },
  );

  itOn('an entry uploaded after the day start it missed is counted out at that start', async () => {
    const t = issuer();
    t.clock.set('2026-06-01T22:00:00Z');
    const f = await festival(t, { auto_exit: true, reentry: true });
    const tid = await f.ticket();
    // Scanned offline on the first night, uploaded the next morning.
    t.clock.set('2026-06-02T08:00:00Z');
    const [entry] = await f.upload([
      { action: 'check_in', ...f.scan(tid, '2026-06-01T23:00:00Z', { admitted_offline: true }) },
    ]);
    assert.equal(entry.body.status, 'valid');
    const moves = (await f.feed()).filter((c) => c.tid === tid).map((c) => [c.type, c.at, c.auto ?? false]);
    assert.deepEqual(moves, [
      ['checked_in', '2026-06-01T23:00:00Z', false],
      ['checked_out', '2026-06-02T06:00:00Z', true],
    ]);
    const now = await f.status(tid);
    assert.equal(now.inside, false);
    assert.equal(now.checked_out_at, '2026-06-02T06:00:00Z');
    assert.equal((await f.occupancy()).inside, 0);
    const back = await f.call('POST', '/api/v1/tickets/check-in', f.scan(tid, '2026-06-02T08:00:00Z'));
    assert.equal(back.body.status, 'valid');
  });

  itOn('an undo after a late upload leaves the holder where the remaining moves put them, by scan time', async () => {
    const t = issuer();
    t.clock.set('2026-06-01T18:00:00Z');
    const f = await festival(t, {});
    const tid = await f.ticket();
    const entry = f.scan(tid, '2026-06-01T18:00:00Z');
    assert.equal((await f.call('POST', '/api/v1/tickets/check-in', entry)).body.status, 'valid');
    // Another gate let the holder in offline ten minutes earlier; its upload arrives now.
    const [late] = await f.upload([
      { action: 'check_in', ...f.scan(tid, '2026-06-01T17:50:00Z', { admitted_offline: true }) },
    ]);
    assert.equal(late.body.status, 'already_used');
    const undo = await f.call('POST', '/api/v1/tickets/check-in/annul', {
      eid: f.eid,
      scanner_id: entry.scanner_id,
      idempotency_key: entry.idempotency_key,
      annulled_at: '2026-06-01T18:00:30Z',
    });
    assert.equal(undo.status, 200, JSON.stringify(undo.body));
    // The 17:50 entry still counts, and nobody took the holder out since: inside.
    const now = await f.status(tid);
    assert.equal(now.inside, true);
    assert.equal(now.entries, 1);
    assert.equal((await f.occupancy()).inside, 1);
  });

  itOn('a replayed scan writes no second scan-log line; a conflict is logged', async () => {
    const t = issuer();
    t.clock.set('2026-06-01T18:00:00Z');
    const f = await festival(t, {});
    const tid = await f.ticket();
    const entry = f.scan(tid, '2026-06-01T18:00:00Z');
    for (let i = 0; i < 3; i++) assert.equal((await f.call('POST', '/api/v1/tickets/check-in', entry)).status, 200);
    await f.upload([{ action: 'check_in', ...entry }]);
    assert.equal((await f.log()).filter((s) => s.tid === tid).length, 1);
    const other = { ...entry, scanned_at: '2026-06-01T18:00:01Z' };
    assert.equal((await f.call('POST', '/api/v1/tickets/check-in', other)).status, 409);
    assert.deepEqual(
      (await f.log()).filter((s) => s.tid === tid).map((s) => s.outcome),
      ['valid', 'idempotency_conflict'],
    );
  });
});

describe('an upload the store serves in part', () => {
  /** A SQLite store whose check-ins of `failing` tids fail as a failing disk does; `down`: every ping too. */
  const flaky = (failing: Set<string>, down: { now: boolean }) => {
    const store = new SqliteStore(':memory:');
    const ioError = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    const checkIns = new Proxy(store.checkIns, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === 'checkIn' || name === 'checkInWithPresence')
          return (attempt: { tid: string }, ...rest: unknown[]) =>
            failing.has(attempt.tid)
              ? Promise.reject(ioError())
              : (value as (...args: unknown[]) => unknown).call(target, attempt, ...rest);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'checkIns') return checkIns;
        if (name === 'ping') return () => (down.now ? Promise.reject(ioError()) : target.ping());
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };

  it('a scan the store could not serve answers 503 inside results; the others keep their answers', async () => {
    const failing = new Set<string>();
    const down = { now: false };
    const t = await testIssuer({ store: flaky(failing, down) });
    try {
      t.clock.set('2026-06-01T18:00:00Z');
      const f = await festival(t, {});
      const [a, b] = [await f.ticket(), await f.ticket()];
      failing.add(a);
      const scans = [a, b, a].map((tid, i) => ({ action: 'check_in', ...f.scan(tid, `2026-06-01T17:5${i}:00Z`) }));
      const res = await f.call('POST', '/api/v1/tickets/scans', { scans });
      assert.equal(res.status, 200);
      const results = res.body.results as Json[];
      assert.deepEqual(
        results.map((r) => [r.idempotency_key, r.status_code]),
        scans.map((s, i) => [s.idempotency_key, i === 1 ? 200 : 503]),
      );
      assert.equal(results[0]!.body.error.code, 'UNAVAILABLE');
      assert.equal(typeof results[0]!.body.error.details.retry_after_seconds, 'number');
      assert.equal(results[1]!.body.status, 'valid');
      // The store down altogether: the whole upload is 503, so that the scanner keeps its queue.
      down.now = true;
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: { authorization: `Bearer ${f.apiKey}` },
        payload: { scans: [{ action: 'check_in', ...f.scan(a, '2026-06-01T17:59:00Z') }] },
      });
      assert.equal(again.statusCode, 503);
      assert.ok(again.headers['retry-after']);
    } finally {
      await t.close();
    }
  });
});
