/**
 * This checkout's issuer (A) against another commit's (B), on the same store kind, on one machine
 * whose speed drifts from one minute to the next by more than most changes are worth. Both issuers
 * run side by side (built, as `npm start` runs them), each on its own SQLite file or fresh
 * PostgreSQL database, both started afresh for every pair (see startPair); each pair of rounds
 * loads A then B, or B then A (alternating), with the same check-ins over 50 connections as
 * bench/http.ts: the seed's body without `ticket_token`, then with it. The bare node:http floor is
 * loaded in every pair too. Prints, per store and body, the median of the pairs' throughput ratios
 * A/B with their min and max, each side's median ratio to the floor, and each issuer's CPU time per
 * check-in (from /proc: it moves less than throughput when others load the machine) with the median
 * of the pairs' ratios A/B, and on PostgreSQL the same of its database's backends (the server shares
 * the machine's cores with the issuer: its work per check-in counts too).
 * Run: npm run bench:compare <git-ref> [sqlite|postgres]…
 *      (BENCH_COMPARE_PAIRS, default 6; BENCH_COMPARE_CHECK_INS per round, default 4,000)
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Issuer } from '../packages/scanner/test/issuer.ts';
import { median } from '../packages/scanner/bench/rounds.ts';
import { buildHere, prepareCheckout } from './checkout.ts';
import { load, type LoadResult } from './load.ts';
import { cpuSeconds, freshPostgres, scannerOf, startBare, startIssuer } from './processes.ts';

const CONNECTIONS = 50;
const PAIRS = Number(process.env.BENCH_COMPARE_PAIRS ?? 6);
const PER_ROUND = Number(process.env.BENCH_COMPARE_CHECK_INS ?? 4_000);
const WARM_UP = 2_000;
const BODIES = ['plain', 'signed'] as const;
type Body = (typeof BODIES)[number];

const [ref, ...rest] = process.argv.slice(2);
if (!ref) {
  process.stderr.write('usage: npm run bench:compare <git-ref> [sqlite|postgres]…\n');
  process.exit(2);
}
const backends = (rest.length > 0 ? rest : ['sqlite', 'postgres']) as ('sqlite' | 'postgres')[];
const say = (line: string) => process.stdout.write(`${line}\n`);
/** The table's rows, printed once every store is measured. */
const summary: string[] = [];

/** One side: an issuer, its event's unscanned tickets, and a scanner enrolled in the event. */
interface Side {
  name: 'A' | 'B';
  issuer: Issuer;
  eid: string;
  scanner: { headers: Record<string, string>; id: string };
  tickets: { tid: string; token: string }[];
  drop: (() => Promise<void>) | null;
  /** The CPU seconds of the database's backends (PostgreSQL), or null. */
  backendCpu: (() => Promise<number>) | null;
}

async function startSide(name: 'A' | 'B', root: string | undefined, backend: string): Promise<Side | null> {
  const database = backend === 'postgres' ? await freshPostgres() : null;
  if (backend === 'postgres' && !database) return null;
  // A database of an issuer that never started is dropped all the same.
  const issuer = await startIssuer(database?.url ?? null, {}, root).catch(async (error: unknown) => {
    await database?.drop();
    throw error;
  });
  const eid = await issuer.createEvent(`Compare ${name}`);
  const tickets: Side['tickets'] = [];
  const needed = WARM_UP + PER_ROUND * BODIES.length;
  for (let issued = 0; issued < needed; issued += 10_000)
    tickets.push(...(await issuer.issue(eid, Math.min(10_000, needed - issued))));
  const scanner = await scannerOf(issuer, eid);
  const backendCpu = database?.backendCpuSeconds ?? null;
  return { name, issuer, eid, scanner, tickets, drop: database?.drop ?? null, backendCpu };
}

/**
 * A round's load, and the issuer's CPU time per check-in in it (ms, every thread; NaN without /proc),
 * and on PostgreSQL its database backends' (NaN on SQLite, whose work is the issuer's own).
 */
/** A figure, or "n/a" where there is none (the database's CPU on SQLite, whose work is the issuer's). */
const numberOrNone = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const msOrNone = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(3)} ms` : 'n/a');
const dbCpuOf = (ms: number): string => (Number.isFinite(ms) ? ` ${ms.toFixed(2)} ms database CPU` : '');

type Round = LoadResult & { cpuMs: number; dbCpuMs: number };

/** First scans of `count` distinct tickets of the side's event, CONNECTIONS at a time. */
async function checkIns(side: Side, count: number, body: Body): Promise<Round> {
  const tickets = side.tickets.splice(0, count);
  const cpuBefore = cpuSeconds(side.issuer.pid) ?? Number.NaN;
  const dbBefore = (await side.backendCpu?.()) ?? Number.NaN;
  const result = await load({
    url: `${side.issuer.url}/api/v1/tickets/check-in`,
    connections: CONNECTIONS,
    amount: count,
    method: 'POST',
    headers: side.scanner.headers,
    body: (i) => ({
      tid: tickets[i]!.tid,
      eid: side.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: side.scanner.id,
      idempotency_key: randomUUID(),
      ...(body === 'signed' ? { ticket_token: tickets[i]!.token } : {}),
    }),
  });
  const cpuMs = (((cpuSeconds(side.issuer.pid) ?? Number.NaN) - cpuBefore) * 1000) / count;
  const dbCpuMs = ((((await side.backendCpu?.()) ?? Number.NaN) - dbBefore) * 1000) / count;
  return { ...result, cpuMs, dbCpuMs };
}

const bareBody = () => ({
  tid: 't',
  eid: 'e',
  scanned_at: new Date().toISOString(),
  scanner_id: 's',
  idempotency_key: randomUUID(),
});

interface Pair {
  floor: number;
  a: Record<Body, Round>;
  b: Record<Body, Round>;
}

/** The machine's load average over 1, 5 and 15 minutes (shared with others: say it beside every figure). */
const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/**
 * One pair's two issuers, started fresh (the first named starts first): a process that stays up for
 * every pair carries its own lasting bias (memory layout, where its WAL is in its restarts), which
 * the same code run against itself showed as up to a fifth, the same way in every pair. Started
 * afresh for each pair, that bias lands in the pairs' spread instead of in their median.
 */
async function startPair(
  backend: 'sqlite' | 'postgres',
  otherRoot: string,
  first: 'A' | 'B',
): Promise<[Side, Side] | null> {
  const roots = { A: undefined, B: otherRoot };
  const second = first === 'A' ? 'B' : 'A';
  const one = await startSide(first, roots[first], backend);
  if (!one) return null;
  const two = await startSide(second, roots[second], backend).catch(async (error: unknown) => {
    await stopSide(one);
    throw error;
  });
  if (!two) {
    await stopSide(one);
    return null;
  }
  return [one, two];
}

async function stopSide(side: Side): Promise<void> {
  await side.issuer.stop();
  rmSync(side.issuer.dataDir, { recursive: true, force: true });
  await side.drop?.();
}

async function compare(backend: 'sqlite' | 'postgres', otherRoot: string, bareUrl: string): Promise<void> {
  const floorRun = () =>
    load({ url: bareUrl, connections: CONNECTIONS, amount: PER_ROUND * 3, method: 'POST', body: bareBody });
  const pairs: Pair[] = [];
  for (let n = 1; n <= PAIRS; n++) {
    const order = await startPair(backend, otherRoot, n % 2 === 1 ? 'A' : 'B');
    if (!order) {
      say(`${backend}: no PostgreSQL server reachable, skipped`);
      return;
    }
    const pair = { a: {}, b: {} } as Pair;
    try {
      // Warm-up (JIT, connections, the store's caches), not counted.
      for (const side of order) await checkIns(side, WARM_UP, 'plain');
      const floors = [await floorRun()];
      for (const body of BODIES)
        for (const side of order) pair[side.name === 'A' ? 'a' : 'b'][body] = await checkIns(side, PER_ROUND, body);
      floors.push(await floorRun());
      pair.floor = (floors[0]!.rate + floors[1]!.rate) / 2;
    } finally {
      for (const side of order) await stopSide(side);
    }
    pairs.push(pair);
    const errors = BODIES.flatMap((body) => [pair.a[body], pair.b[body]]).reduce(
      (sum, r) => sum + r.non2xx + r.errors,
      0,
    );
    say(
      `${backend} pair ${n} (${order[0].name} first, load ${loadAverage()}): floor ${pair.floor.toFixed(0)}/s; ` +
        BODIES.map(
          (body) =>
            `${body} A ${pair.a[body].rate.toFixed(0)}/s p99 ${pair.a[body].p99} ms ${pair.a[body].cpuMs.toFixed(2)} ms CPU` +
            dbCpuOf(pair.a[body].dbCpuMs) +
            ', ' +
            `B ${pair.b[body].rate.toFixed(0)}/s p99 ${pair.b[body].p99} ms ${pair.b[body].cpuMs.toFixed(2)} ms CPU` +
            dbCpuOf(pair.b[body].dbCpuMs),
        ).join('; ') +
        (errors > 0 ? `; ${errors} errors` : ''),
    );
  }
  for (const body of BODIES) {
    const ratios = pairs.map((p) => p.a[body].rate / p.b[body].rate);
    const ofFloor = (side: 'a' | 'b') => median(pairs.map((p) => p[side][body].rate / p.floor)).toFixed(3);
    const p99 = (side: 'a' | 'b') => median(pairs.map((p) => p[side][body].p99)).toFixed(0);
    const cpu = (side: 'a' | 'b') => median(pairs.map((p) => p[side][body].cpuMs)).toFixed(3);
    const cpuRatios = pairs.map((p) => p.a[body].cpuMs / p.b[body].cpuMs);
    const dbCpu = (side: 'a' | 'b') => msOrNone(median(pairs.map((p) => p[side][body].dbCpuMs)));
    const dbCpuRatios = pairs.map((p) => p.a[body].dbCpuMs / p.b[body].dbCpuMs);
    summary.push(
      `| ${backend} | ${body === 'plain' ? 'without' : 'with'} ticket_token | ${median(ratios).toFixed(3)} ` +
        `(${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) | ${ofFloor('a')} | ${ofFloor('b')} | ` +
        `${p99('a')} ms | ${p99('b')} ms | ${ratios.filter((r) => r > 1).length} of ${PAIRS} | ` +
        `${cpu('a')} ms | ${cpu('b')} ms | ${median(cpuRatios).toFixed(3)} (${Math.min(...cpuRatios).toFixed(3)}–${Math.max(...cpuRatios).toFixed(3)}) | ` +
        `${dbCpu('a')} | ${dbCpu('b')} | ${numberOrNone(median(dbCpuRatios))} |`,
    );
  }
}

buildHere();
const other = prepareCheckout(ref, say);
say(`A: this checkout; B: ${ref} (${other.commit.slice(0, 12)}); load average ${loadAverage()}`);
say(`${PAIRS} pairs of ${PER_ROUND} check-ins per body and side, ${CONNECTIONS} connections\n`);
const bare = await startBare();
try {
  for (const backend of backends) await compare(backend, other.dir, bare.url);
} finally {
  await bare.stop();
}
say(`\nA: this checkout; B: ${ref}; medians over ${PAIRS} pairs; load average at the end ${loadAverage()}`);
say(
  '| store | body | A/B throughput, median (min–max) | A / floor | B / floor | A p99 | B p99 | A faster in | ' +
    'A CPU per check-in | B CPU per check-in | A/B CPU, median (min–max) | ' +
    'A database CPU per check-in | B database CPU per check-in | A/B database CPU, median |',
);
say('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const row of summary) say(row);
