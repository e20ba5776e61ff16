/**
 * Soak: a steady rate of check-ins (500/s by default) for a long while (10 minutes by default) on each
 * store, with a bare node:http server held to the same rate for a minute in the same run. Each minute
 * reports the check-ins' p50 and p99 and the resident memory at its end (and the peak so far) of an
 * issuer process started after the tickets were issued; the figure of merit is
 * the last minute against the first (both within 10 %: nothing grows, nothing slows as the tables fill).
 * Run: node --import tsx bench/soak.ts [sqlite|postgres]…  (SOAK_MINUTES, SOAK_RATE). Prints; never fails.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { freshPostgres, scannerOf, startBare, startIssuer } from './processes.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 500);
const CONNECTIONS = 20;
const BATCH = 10_000;

interface Minute {
  p50: number;
  p99: number;
  rate: number;
  non2xx: number;
  errors: number;
  /** Resident memory of the serving process at the minute's end (VmRSS), in MiB. */
  rssMiB: number | null;
  /** The most it has had so far (VmHWM), in MiB. */
  peakMiB: number | null;
}

/** Resident memory now (VmRSS) or at its most (VmHWM), in MiB; null where /proc is absent. */
function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number | null {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** One minute at `RATE` requests a second, spread over the connections; request i's body from `body`. */
async function minuteOfLoad(
  url: string,
  headers: Record<string, string>,
  body: (() => unknown) | null,
  pid: number,
): Promise<Minute> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: 60,
    timeout: 30,
    requests: [
      {
        method: body ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', ...headers },
        ...(body ? { setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }) } : {}),
      },
    ],
  });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rate: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    rssMiB: rssMiB(pid),
    peakMiB: rssMiB(pid, 'VmHWM'),
  };
}

async function soak(backend: 'sqlite' | 'postgres'): Promise<Minute[] | null> {
  const database = backend === 'postgres' ? await freshPostgres() : null;
  if (backend === 'postgres' && !database) {
    process.stdout.write('PostgreSQL: no server reachable, skipped\n');
    return null;
  }
  const issuer = await startIssuer(database?.url ?? null);
  try {
    const eid = await issuer.createEvent(`Soak, ${backend}`);
    // One distinct ticket a check-in (first scans: each one writes), a few more for the timer's slack.
    const needed = Math.ceil(RATE * 60 * MINUTES * 1.05);
    const tids: string[] = [];
    for (let issued = 0; issued < needed; issued += BATCH) {
      tids.push(...(await issuer.issue(eid, Math.min(BATCH, needed - issued))).map((t) => t.tid));
    }
    // A fresh process serves the soak: what it holds is what serving takes, not what issuing the
    // tickets left behind (its peak then is the serving peak). Dirty pages are flushed first.
    await issuer.stop('SIGTERM');
    execFileSync('sync');
    await issuer.restart();
    const scanner = await scannerOf(issuer, eid);
    let next = 0;
    const body = () => ({
      tid: tids[next++ % tids.length],
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.id,
      idempotency_key: randomUUID(),
    });
    const minutes: Minute[] = [];
    for (let m = 0; m < MINUTES; m += 1) {
      const minute = await minuteOfLoad(`${issuer.url}/api/v1/tickets/check-in`, scanner.headers, body, issuer.pid);
      minutes.push(minute);
      process.stdout.write(`${backend} minute ${m + 1}: ${describe(minute)}\n`);
    }
    return minutes;
  } finally {
    await issuer.stop('SIGTERM');
    await database?.drop();
  }
}

const describe = (m: Minute) =>
  `${m.rate.toFixed(0)}/s, p50 ${m.p50} ms, p99 ${m.p99} ms, RSS ${m.rssMiB ?? '?'} MiB (peak ${m.peakMiB ?? '?'})` +
  (m.non2xx + m.errors > 0 ? `, ${m.non2xx} non-2xx, ${m.errors} errors` : '');

/** The last minute over the first, as a ratio (1.00: unchanged). */
const drift = (first: number | null, last: number | null) =>
  first && last !== null ? (last / first).toFixed(2) : 'n/a';

const backends = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'postgres']) as (
  'sqlite' | 'postgres'
)[];
process.stdout.write(`Soak: ${RATE} check-ins/s for ${MINUTES} min on each store\n`);
const bare = await startBare();
try {
  const floor = await minuteOfLoad(bare.url, {}, null, bare.pid);
  process.stdout.write(`bare node:http at ${RATE}/s for 1 min: ${describe(floor)}\n`);
} finally {
  await bare.stop();
}
for (const backend of backends) {
  const minutes = await soak(backend);
  if (!minutes || minutes.length === 0) continue;
  const first = minutes[0]!;
  const last = minutes[minutes.length - 1]!;
  process.stdout.write(
    `${backend}: last minute / first minute: p99 ${drift(first.p99, last.p99)}, RSS ${drift(first.rssMiB, last.rssMiB)}` +
      ` (target: each at most 1.10)\n`,
  );
}
