/**
 * Compares the sync of this checkout's issuer (A) with another checkout's (B) on one machine, whose
 * speed drifts from one minute to the next by more than most changes are worth: both issuers run
 * side by side, and each pair of rounds (one on A, one on B, their order alternating) runs within
 * the same minute. The figure is the median of the pairs' ratios B/A. Pointing B at this checkout
 * measures the method's own spread. The same CLI (this checkout's) syncs with both.
 * Run: node --import tsx packages/scanner/bench/sync-ab.ts <other checkout> [count] [pairs]
 *      (default 10,000 scans and 8 pairs; the other checkout needs its dependencies installed,
 *      e.g. `git worktree add ../base <commit>` and `npm ci` there)
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { median, setUp, type SyncSetup, syncRound } from './rounds.ts';

const [other, countArg, pairsArg] = process.argv.slice(2);
if (!other) {
  process.stderr.write('usage: sync-ab.ts <other checkout> [count] [pairs]\n');
  process.exit(2);
}
const count = Number(countArg ?? 10_000);
const pairs = Number(pairsArg ?? 8);

const a = await setUp('Sync A');
let b: SyncSetup | null = null;
try {
  b = await setUp('Sync B', resolve(other));
  // A first round on each warms it up and is not counted.
  await syncRound(a, count);
  await syncRound(b, count);
  const rows: { a: number; b: number }[] = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const aFirst = pair % 2 === 1;
    const first = await syncRound(aFirst ? a : b, count);
    const second = await syncRound(aFirst ? b : a, count);
    const [onA, onB] = aFirst ? [first, second] : [second, first];
    rows.push({ a: onA.syncMs, b: onB.syncMs });
    process.stdout.write(
      `pair ${pair}: A ${Math.round(onA.syncMs)} ms (issuer CPU ${onA.cpu.toFixed(1)} s), ` +
        `B ${Math.round(onB.syncMs)} ms (issuer CPU ${onB.cpu.toFixed(1)} s), B/A ${(onB.syncMs / onA.syncMs).toFixed(3)}\n`,
    );
  }
  const ratios = rows.map((r) => r.b / r.a);
  process.stdout.write(
    `${count} scans, ${pairs} pairs: median A ${Math.round(median(rows.map((r) => r.a)))} ms, ` +
      `median B ${Math.round(median(rows.map((r) => r.b)))} ms, median B/A ${median(ratios).toFixed(3)} ` +
      `(B faster in ${ratios.filter((r) => r < 1).length} of ${pairs} pairs)\n`,
  );
} finally {
  for (const setup of [a, b]) {
    if (!setup) continue;
    await setup.issuer.stop();
    rmSync(setup.issuer.dataDir, { recursive: true, force: true });
  }
}
