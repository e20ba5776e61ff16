/**
 * The SQLite store's check-in alone, this checkout's (A) against another commit's (B), in one process:
 * no HTTP, no load generator, so what it measures is the store's own CPU per first scan (the process's
 * CPU time, every thread: the statements, the group commit, its fsync). Each pair of rounds runs A then
 * B, or B then A (alternating), each on a fresh file store with the same event, tickets and key; the
 * check-ins go in with IN_FLIGHT outstanding at a time, as a loaded HTTP front end hands them over,
 * so the group commit forms groups as it would there. Prints, per pair, each side's CPU per check-in
 * and rate, and the median of the pairs' ratios A/B with their min and max.
 * Run: node --import tsx bench/store-compare.ts <git-ref>
 *      (BENCH_STORE_PAIRS, default 8; BENCH_STORE_CHECK_INS per round, default 6,000; BENCH_STORE_IN_FLIGHT, default 25)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '../packages/scanner/bench/rounds.ts';
import type { CheckInAttempt, Store } from '../src/store/store.ts';
import type { decide as Decide, withoutTypes as WithoutTypes } from '../src/domain/decide.ts';
import { newApiKey, newEvent, newTicket, newToken } from '../test/store/conformance.ts';
import { prepareCheckout } from './checkout.ts';

const PAIRS = Number(process.env.BENCH_STORE_PAIRS ?? 8);
const COUNT = Number(process.env.BENCH_STORE_CHECK_INS ?? 6_000);
const IN_FLIGHT = Number(process.env.BENCH_STORE_IN_FLIGHT ?? 25);
const say = (line: string) => process.stdout.write(`${line}\n`);
const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface Side {
  name: 'A' | 'B';
  open: (file: string) => Store;
  decide: typeof Decide;
  withoutTypes: typeof WithoutTypes;
}

async function sideOf(name: 'A' | 'B', root: string): Promise<Side> {
  const from = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { SqliteStore } = (await from('src/store/sqlite/sqlite-store.ts')) as {
    SqliteStore: new (file: string) => Store;
  };
  const { decide, withoutTypes } = (await from('src/domain/decide.ts')) as {
    decide: typeof Decide;
    withoutTypes: typeof WithoutTypes;
  };
  return { name, open: (file) => new SqliteStore(file), decide, withoutTypes };
}

/** One round: a fresh store, COUNT tickets, then COUNT first scans IN_FLIGHT at a time. */
async function round(side: Side): Promise<{ cpuUs: number; rate: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'store-compare-'));
  const store = side.open(join(dir, 'issuer.db'));
  try {
    const event = newEvent();
    await store.events.createEvent(event);
    const tickets = Array.from({ length: COUNT }, () => newTicket(event.eid));
    for (let i = 0; i < COUNT; i += 5_000) await store.tickets.createTickets(tickets.slice(i, i + 5_000));
    const token = newToken(event.eid);
    await store.scanners.createEnrollmentToken(token);
    const key = newApiKey();
    await store.scanners.redeemEnrollmentToken(token.token_hash, token.created_at, key);
    const at = token.created_at;
    const attempt = (i: number): CheckInAttempt => ({
      eid: event.eid,
      tid: tickets[i]!.tid,
      idempotency_key: randomUUID(),
      fingerprint: `fp:${i}`,
      api_key_id: key.api_key_id,
      scanner_id: key.scanner_id,
      gate_id: null,
      scanned_at: at,
      received_at: at,
      admitted_offline: false,
    });
    const types = side.withoutTypes(false);
    let next = 0;
    const worker = async () => {
      while (next < COUNT) {
        const i = next++;
        const result = await store.checkIns.checkIn(attempt(i), (stored, gate, entries) =>
          side.decide(stored, event.eid, at, null, stored?.ticket_token ?? null, { gate, entries }, types),
        );
        if (result.kind !== 'answered' || result.answer.http_status !== 200) throw new Error('not admitted');
      }
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / COUNT, rate: (COUNT * 1000) / elapsed };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ref = process.argv[2];
if (!ref) {
  process.stderr.write('usage: node --import tsx bench/store-compare.ts <git-ref>\n');
  process.exit(2);
}
const other = prepareCheckout(ref, say);
const a = await sideOf('A', fileURLToPath(new URL('..', import.meta.url)));
const b = await sideOf('B', other.dir);
say(`A: this checkout; B: ${ref} (${other.commit.slice(0, 12)}); load average ${loadAverage()}`);
say(`${PAIRS} pairs of ${COUNT} first scans per side, ${IN_FLIGHT} in flight\n`);
await round(a);
await round(b);
const cpuRatios: number[] = [];
const rateRatios: number[] = [];
for (let n = 1; n <= PAIRS; n++) {
  const order = n % 2 === 1 ? [a, b] : [b, a];
  const results = new Map<string, { cpuUs: number; rate: number }>();
  for (const side of order) results.set(side.name, await round(side));
  const ra = results.get('A')!;
  const rb = results.get('B')!;
  cpuRatios.push(ra.cpuUs / rb.cpuUs);
  rateRatios.push(ra.rate / rb.rate);
  say(
    `pair ${n} (${order[0]!.name} first, load ${loadAverage()}): A ${ra.cpuUs.toFixed(0)} µs CPU, ${ra.rate.toFixed(0)}/s; ` +
      `B ${rb.cpuUs.toFixed(0)} µs CPU, ${rb.rate.toFixed(0)}/s`,
  );
}
const spread = (xs: number[]) =>
  `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`;
say(`\nA/B CPU per check-in, median (min–max): ${spread(cpuRatios)}`);
say(`A/B rate, median (min–max): ${spread(rateRatios)}; load average at the end ${loadAverage()}`);
