/**
 * What one offline scan costs the device when many scans wait in its queue (an event's gate offline
 * for hours): `queued` scans of other tickets are queued first, then `scans` scans are made one call
 * each, half of them of tickets already admitted here. In memory (`MemoryStorage`), so that the
 * figure is the device's own work and not the medium's flush.
 * Run: node --import tsx packages/scanner/bench/queued-scan.ts [queued] [scans]   (default 20,000 and 400)
 */
import { MemoryStorage, Scanner } from '../src/index.ts';
import { discovery, fetchFailure } from '../test/fake-issuer.ts';
import { claims, EID, ISS, testKey } from '../test/keys.ts';
import { median } from './rounds.ts';

const queued = Number(process.argv[2] ?? 20_000);
const scans = Number(process.argv[3] ?? 400);

const key = await testKey();
const storage = new MemoryStorage();
storage.files.set(
  'scanner.json',
  JSON.stringify({
    issuer: ISS,
    issuer_name: 'Bench issuer',
    scanner_id: '6f1c2a52-8d0e-4d47-9d7a-1f3f0e0c0a11',
    scanner_name: 'bench',
    api_key_id: 'sck_BENCH',
    eid: EID,
    event_name: 'Bench event',
    event_date: '2026-07-01T18:00:00Z',
    gate_id: null,
    key_expires_at: '2030-07-03T00:00:00Z',
    enrolled_at: '2026-06-01T00:00:00Z',
  }),
);
storage.files.set('credentials.json', JSON.stringify({ api_key: 'sk_live_bench' }));
storage.files.set('discovery.json', JSON.stringify(discovery(key)));
const offline = (async () => Promise.reject(fetchFailure('ECONNREFUSED'))) as typeof fetch;
const scanner = await Scanner.open(storage, { fetch: offline });

const tokens = async (prefix: string, count: number) =>
  Promise.all(Array.from({ length: count }, (_, n) => key.sign(claims(`${prefix}${n}`))));
for (let start = 0; start < queued; start += 1000) {
  await scanner.scan(await tokens(`QUEUED${start}-`, Math.min(1000, queued - start)), { offline: true });
}
const mine = await tokens('MINE', scans / 2);
const times: number[] = [];
for (const token of [...mine, ...mine]) {
  const started = performance.now();
  await scanner.scan([token], { offline: true });
  times.push(performance.now() - started);
}
await scanner.close();
process.stdout.write(
  `${queued} scans queued: an offline scan takes ${(median(times) * 1000).toFixed(0)} µs (median of ${times.length}, ` +
    `a first scan of its ticket and a second alike)\n`,
);
