/**
 * Events with re-entry on PostgreSQL, two issuer processes on one database (as `npm start` runs them):
 *
 * 1. Check-ins per second of an event whose holders may come in again (re-entry after an exit) against
 *    an event without re-entry, rounds alternating, 16 at a time spread over both instances
 *    (target: at least 0.8).
 * 2. Uploads of 500 queued scans of a re-entry event (entries and exits of 250 holders, as a gate that
 *    was offline sends them), one to each instance at once: how long each answers (target: 2 s).
 * 3. Meanwhile, online check-ins of the same event, 4 at a time over both instances: their p99
 *    (target: at most 250 ms), against the same check-ins with no upload running.
 *
 * Run: node --import tsx bench/reentry.ts [check-ins per round]   (default 1500). Prints tables; never fails.
 */
import { randomUUID } from 'node:crypto';
import type { Issuer } from '../packages/scanner/test/issuer.ts';
import { quantile } from './inject.ts';
import { freshPostgres, scannerOf, startIssuer } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 1500);
const ROUNDS = 4;
const CONCURRENCY = 16;

interface Target {
  eid: string;
  tids: string[];
  scanners: { url: string; headers: Record<string, string>; id: string }[];
}

/** An event with `count` tickets (re-entry as given) and a scanner enrolled at each instance. */
async function event(issuers: Issuer[], count: number, reentry: boolean): Promise<Target> {
  const [first] = issuers as [Issuer];
  const eid = await first.createEvent(reentry ? 'Re-entry' : 'Once');
  if (reentry) await first.admin('PATCH', `/admin/v1/events/${eid}`, { reentry: true });
  const tids: string[] = [];
  for (let i = 0; i < count; i += 10_000) {
    const issued = await first.issue(eid, Math.min(10_000, count - i));
    tids.push(...issued.map((t: { tid: string }) => t.tid));
  }
  const scanners = await Promise.all(
    issuers.map(async (issuer) => ({ url: issuer.url, ...(await scannerOf(issuer, eid)) })),
  );
  return { eid, tids, scanners };
}

/** One scan's body. */
const scan = (target: Target, scanner: Target['scanners'][number], tid: string, at: Date) => ({
  tid,
  eid: target.eid,
  scanned_at: at.toISOString(),
  scanner_id: scanner.id,
  idempotency_key: randomUUID(),
});

/** Check-ins of `tids`, `concurrency` at a time alternating instances; each one's time in ms. */
async function checkIns(target: Target, tids: string[], concurrency: number): Promise<number[]> {
  let next = 0;
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < tids.length) {
        const tid = tids[next++]!;
        const scanner = target.scanners[worker % target.scanners.length]!;
        const started = performance.now();
        const res = await fetch(`${scanner.url}/api/v1/tickets/check-in`, {
          method: 'POST',
          headers: { ...scanner.headers, 'content-type': 'application/json' },
          body: JSON.stringify(scan(target, scanner, tid, new Date())),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`check-in answered ${res.status}`);
        times.push(performance.now() - started);
      }
    }),
  );
  return times;
}

/** An upload of entries and exits of `tids` (scanned in the last minutes) to one instance; its time in ms. */
async function upload(target: Target, scanner: Target['scanners'][number], tids: string[]): Promise<number> {
  const base = Date.now() - 10 * 60_000;
  const scans = tids.flatMap((tid, i) => [
    { action: 'check_in', ...scan(target, scanner, tid, new Date(base + i * 100)), admitted_offline: true },
    { action: 'check_out', ...scan(target, scanner, tid, new Date(base + i * 100 + 60_000)) },
  ]);
  const started = performance.now();
  const res = await fetch(`${scanner.url}/api/v1/tickets/scans`, {
    method: 'POST',
    headers: { ...scanner.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ scans }),
  });
  const body = (await res.json()) as { results?: { status_code: number }[] };
  if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
  const failed = body.results!.filter((r) => r.status_code >= 500).length;
  if (failed > 0) throw new Error(`upload: ${failed} scans answered 5xx`);
  return performance.now() - started;
}

const median = (values: number[]) => quantile(values, 0.5);
const ms = (value: number) => `${Math.round(value)} ms`;

const database = await freshPostgres();
if (database === null) {
  process.stdout.write('\nRe-entry on PostgreSQL: skipped, no PostgreSQL answered.\n');
  process.exit(0);
}
const issuers = [await startIssuer(database.url), await startIssuer(database.url)];
try {
  const once = await event(issuers, PER_ROUND * ROUNDS, false);
  const again = await event(issuers, PER_ROUND * ROUNDS, true);
  const ratios: number[] = [];
  const rates = { once: [] as number[], again: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const slice = (t: Target) => t.tids.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
    const rate = async (t: Target) => {
      const started = performance.now();
      await checkIns(t, slice(t), CONCURRENCY);
      return PER_ROUND / ((performance.now() - started) / 1000);
    };
    const a = await rate(once);
    const b = await rate(again);
    rates.once.push(a);
    rates.again.push(b);
    ratios.push(b / a);
  }

  // Uploads and online check-ins of one re-entry event of 2,000 holders.
  const gate = await event(issuers, 2_000, true);
  const quiet = await checkIns(gate, gate.tids.slice(1_000, 1_400), 4);
  const uploads = Promise.all([
    upload(gate, gate.scanners[0]!, gate.tids.slice(0, 250)),
    upload(gate, gate.scanners[1]!, gate.tids.slice(250, 500)),
  ]);
  const online = checkIns(gate, gate.tids.slice(1_400, 1_800), 4);
  const [uploadTimes, busy] = await Promise.all([uploads, online]);

  process.stdout.write(
    [
      '',
      `Check-ins of an event with re-entry against one without, PostgreSQL, two instances (${CONCURRENCY} at a time, ${ROUNDS} rounds of ${PER_ROUND}, target ≥ 0.8):`,
      '',
      '| re-entry/none per round | median | none/s | re-entry/s |',
      '|---|---:|---:|---:|',
      `| ${ratios.map((r) => r.toFixed(2)).join(', ')} | ${median(ratios).toFixed(2)} | ${Math.round(median(rates.once))} | ${Math.round(median(rates.again))} |`,
      '',
      'Two uploads of 500 queued scans (entries and exits of 250 holders) of a re-entry event, one to each instance at once (target: each within 2 s), and online check-ins of the same event meanwhile, 4 at a time (target: p99 ≤ 250 ms):',
      '',
      '| upload 1 | upload 2 | online p50 quiet | online p99 quiet | online p50 during uploads | online p99 during uploads |',
      '|---:|---:|---:|---:|---:|---:|',
      `| ${ms(uploadTimes[0]!)} | ${ms(uploadTimes[1]!)} | ${ms(quantile(quiet, 0.5))} | ${ms(quantile(quiet, 0.99))} | ${ms(quantile(busy, 0.5))} | ${ms(quantile(busy, 0.99))} |`,
      '',
    ].join('\n'),
  );
} finally {
  for (const issuer of issuers) await issuer.stop();
  await database.drop();
}
