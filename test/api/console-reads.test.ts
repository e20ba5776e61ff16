import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/backends.ts';
import { adminCall, enrollScanner, postCheckIn, scenario, T0 } from '../helpers/app.ts';
import type { App } from '../../src/http/context.ts';

/** What the console polls beside the counters: arrivals per gate over time, and the scan log a page at a time. */

const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

interface Arrivals {
  bucket_minutes: number;
  buckets: string[];
  gates: { gate_id: string | null; entries: number[]; total: number }[];
}
interface RecentScans {
  scans: { scan_id: number; tid: string; outcome: string; holder_name?: string | null }[];
  next_cursor: string | null;
  has_more: boolean;
  newer_cursor: string;
}

/** An event whose tickets are checked in at these minutes (before T0) and gates, each by a scanner of that gate. */
async function arrivalsAt(
  app: App,
  entries: [number, string | null][],
): Promise<{ eid: string; scanners: Map<string | null, { apiKey: string; scannerId: string }> }> {
  const s = await scenario(app);
  const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
    app,
    'POST',
    `/admin/v1/events/${s.eid}/tickets`,
    {
      tickets: entries.map((_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })),
    },
  );
  const keys = new Map<string | null, { apiKey: string; scannerId: string }>();
  for (const [i, [minute, gate]] of entries.entries()) {
    if (!keys.has(gate)) {
      const scannerId = randomUUID();
      keys.set(gate, { scannerId, ...(await enrollScanner(app, s.eid, scannerId, gate ?? undefined)) });
    }
    const { apiKey, scannerId } = keys.get(gate)!;
    const body = {
      tid: tickets[i]!.tid,
      eid: s.eid,
      scanned_at: at(minute),
      scanner_id: scannerId,
      idempotency_key: randomUUID(),
    };
    assert.equal((await postCheckIn(app, apiKey, body)).json().status, 'valid');
  }
  return { eid: s.eid, scanners: keys };
}

await eachBackend('console reads', ({ it, issuer }) => {
  it('arrivals: entries per gate in 1-minute buckets over a short span, from the first entry to the last', async () => {
    const app = issuer().app;
    const { eid } = await arrivalsAt(app, [
      [-50, 'north'],
      [-47, 'north'],
      [-38, 'south'],
      [-10, null],
    ]);
    const arrivals = await adminCall<Arrivals>(app, 'GET', `/admin/v1/events/${eid}/arrivals`);
    assert.equal(arrivals.bucket_minutes, 1);
    assert.equal(arrivals.buckets.length, 41);
    assert.equal(arrivals.buckets[0], at(-50).replace('.000Z', 'Z'));
    assert.deepEqual(
      arrivals.gates.map((g) => [g.gate_id, g.total, g.entries[0], g.entries[3]]),
      [
        [null, 1, 0, 0],
        ['north', 2, 1, 1],
        ['south', 1, 0, 0],
      ],
    );
  });

  it('arrivals: wider buckets for a long evening, none before an entry, 404 for an unknown event', async () => {
    const app = issuer().app;
    const { eid } = await arrivalsAt(app, [
      [-300, 'north'],
      [-5, 'north'],
    ]);
    const arrivals = await adminCall<Arrivals>(app, 'GET', `/admin/v1/events/${eid}/arrivals`);
    assert.equal(arrivals.bucket_minutes, 10);
    assert.ok(arrivals.buckets.length <= 48);
    assert.deepEqual(
      arrivals.gates.map((g) => g.total),
      [2],
    );
    const empty = await scenario(app);
    assert.deepEqual(await adminCall(app, 'GET', `/admin/v1/events/${empty.eid}/arrivals`), {
      bucket_minutes: 1,
      buckets: [],
      gates: [],
    });
    const unknown = await app.inject({
      method: 'GET',
      url: '/admin/v1/events/evt_01J00000000000000000000000/arrivals',
      headers: { authorization: `Bearer ${issuer().config.adminToken}` },
    });
    assert.equal(unknown.statusCode, 404);
  });

  it('the latest scans newest first, a page at a time; newer_cursor then follows the log from there', async () => {
    const app = issuer().app;
    const { eid, scanners } = await arrivalsAt(app, [
      [-9, 'north'],
      [-8, 'north'],
      [-7, 'north'],
      [-6, 'north'],
      [-5, 'north'],
    ]);
    const url = `/admin/v1/events/${eid}/scans`;
    const first = await adminCall<RecentScans>(app, 'GET', `${url}/recent?limit=2&include=holder_name`);
    assert.deepEqual(
      first.scans.map((s) => s.holder_name),
      ['Guest 4', 'Guest 3'],
    );
    assert.equal(first.has_more, true);
    const second = await adminCall<RecentScans>(app, 'GET', `${url}/recent?limit=2&cursor=${first.next_cursor}`);
    const third = await adminCall<RecentScans>(app, 'GET', `${url}/recent?limit=2&cursor=${second.next_cursor}`);
    assert.equal(third.scans.length, 1);
    assert.equal(third.next_cursor, null);
    assert.equal(third.has_more, false);
    const ids = [...first.scans, ...second.scans, ...third.scans].map((s) => s.scan_id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    assert.equal(new Set(ids).size, 5);
    assert.equal(second.scans[0]!.holder_name, undefined, 'holder names only when asked for');

    // A scan logged since: following from newer_cursor reads it alone.
    const { tid } = (await adminCall<RecentScans>(app, 'GET', `${url}/recent?limit=1`)).scans[0]!;
    const { apiKey, scannerId } = scanners.get('north')!;
    const again = { tid, eid, scanned_at: at(-1), scanner_id: scannerId, idempotency_key: randomUUID() };
    assert.equal((await postCheckIn(app, apiKey, again)).json().status, 'already_used');
    const newer = await adminCall<{ scans: { tid: string; outcome: string }[] }>(
      app,
      'GET',
      `${url}?cursor=${first.newer_cursor}`,
    );
    assert.deepEqual(
      newer.scans.map((scan) => [scan.tid, scan.outcome]),
      [[tid, 'already_used']],
    );
    const nothing = await scenario(app);
    const none = await adminCall<RecentScans>(app, 'GET', `/admin/v1/events/${nothing.eid}/scans/recent`);
    assert.deepEqual(none, { scans: [], next_cursor: null, has_more: false, newer_cursor: '0' });
  });
});
