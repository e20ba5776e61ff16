/**
 * Where a check-in's time goes: a built issuer (this checkout's, or another commit's made as
 * `npm run bench:compare` makes it) under the inspector's sampling profiler (`--cpu-prof`), loaded
 * with bench/http.ts's first scans over 50 connections, then stopped with SIGTERM so that it writes
 * its profile. Prints the functions with the most time of their own, and the inclusive time of each
 * function named on the command line after `--` (e.g. `-- onRequest checkIn`), as shares of all samples.
 * Run: node --import tsx bench/profile-check-in.ts [sqlite|postgres] [git-ref] [-- function…]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareCheckout } from './checkout.ts';
import { load } from './load.ts';
import { freshPostgres, scannerOf, startIssuer } from './processes.ts';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
const [backend = 'sqlite', ref] = dash === -1 ? args : args.slice(0, dash);
const watched = dash === -1 ? [] : args.slice(dash + 1);
const COUNT = Number(process.env.BENCH_PROFILE_CHECK_INS ?? 10_000);
const say = (line: string) => process.stdout.write(`${line}\n`);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

const root = ref ? prepareCheckout(ref, say).dir : undefined;
const database = backend === 'postgres' ? await freshPostgres() : null;
const window = { from: 0n, to: 0n };
const profiles = mkdtempSync(join(tmpdir(), 'issuer-profile-'));
const issuer = await startIssuer(database?.url ?? null, {}, root);
try {
  const eid = await issuer.createEvent('Profile');
  const tickets: { tid: string; token: string }[] = [];
  for (let i = 0; i < COUNT + 2_000; i += 10_000)
    tickets.push(...(await issuer.issue(eid, Math.min(10_000, COUNT + 2_000 - i))));
  // The profile covers serving only: a fresh process on the same database, the tickets issued.
  await issuer.stop('SIGTERM');
  issuer.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profiles}`];
  await issuer.restart();
  const scanner = await scannerOf(issuer, eid);
  const run = (from: number, count: number, signed: boolean) =>
    load({
      url: `${issuer.url}/api/v1/tickets/check-in`,
      connections: 50,
      amount: count,
      method: 'POST',
      headers: scanner.headers,
      body: (i) => ({
        tid: tickets[from + i]!.tid,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.id,
        idempotency_key: randomUUID(),
        ...(signed && { ticket_token: tickets[from + i]!.token }),
      }),
    });
  await run(0, 2_000, false);
  // The measured run's span on the monotonic clock, which the profiler's timestamps share.
  window.from = process.hrtime.bigint() / 1000n;
  const result = await run(2_000, COUNT, process.env.BENCH_PROFILE_SIGNED === '1');
  window.to = process.hrtime.bigint() / 1000n;
  if (process.env.BENCH_PROFILE_KEEP)
    writeFileSync(`${process.env.BENCH_PROFILE_KEEP}.window`, `${window.from} ${window.to}`);
  say(`${backend} ${ref ?? 'this checkout'}: ${result.rate.toFixed(0)}/s, p99 ${result.p99} ms (under the profiler)`);
} finally {
  await issuer.stop('SIGTERM');
  rmSync(issuer.dataDir, { recursive: true, force: true });
  await database?.drop();
}

const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
rmSync(profiles, { recursive: true, force: true });
// Kept for a closer look (e.g. in Chrome's DevTools), when asked.
if (process.env.BENCH_PROFILE_KEEP) writeFileSync(process.env.BENCH_PROFILE_KEEP, JSON.stringify(profile));
// Only the samples taken during the measured run count: start-up, seeding and shutdown are left out.
for (const node of profile.nodes) node.hitCount = 0;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
let at = BigInt(profile.startTime);
profile.samples.forEach((id, i) => {
  at += BigInt(profile.timeDeltas[i]!);
  if (at >= window.from && at <= window.to) byId.get(id)!.hitCount! += 1;
});
const spanMs = Number(window.to - window.from) / 1000;
const total = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
const bundle = join(root ?? fileURLToPath(new URL('..', import.meta.url)), 'dist', 'server.js');
const map = new SourceMap(
  JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0],
);
/** Where a frame's code comes from: the source file and line inside the bundle, else its own file. */
function place(node: ProfileNode): { file: string; line: number } {
  const { url, lineNumber, columnNumber } = node.callFrame;
  if (url.endsWith('/dist/server.js')) {
    const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number };
    if (entry.originalSource)
      return {
        file: entry.originalSource.replace(/^.*?\/(src|packages|node_modules)\//, '$1/'),
        line: entry.originalLine! + 1,
      };
  }
  return { file: url.replace(/^.*\/node_modules\//, 'node_modules/') || '(native)', line: lineNumber + 1 };
}
const label = (node: ProfileNode) => {
  const { file, line } = place(node);
  return `${node.callFrame.functionName || '(anonymous)'} ${file}:${line}`;
};

const self = new Map<string, number>();
for (const node of profile.nodes) self.set(label(node), (self.get(label(node)) ?? 0) + (node.hitCount ?? 0));
say(
  `\n${total} samples in the measured run (${spanMs.toFixed(0)} ms, about ${((spanMs * 1000) / total).toFixed(0)} µs each); ` +
    `${((spanMs * 1000) / COUNT).toFixed(0)} µs of wall time per check-in; most time of their own:`,
);
for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40))
  say(`${((100 * hits) / total).toFixed(1).padStart(5)} %  ${name}`);

/** Samples under every call of a function (each sample counted once, however deep the recursion). */
function inclusive(name: string): number {
  let hits = 0;
  const walk = (id: number, inside: boolean) => {
    const node = byId.get(id)!;
    const here = inside || node.callFrame.functionName === name;
    if (here) hits += node.hitCount ?? 0;
    for (const child of node.children ?? []) walk(child, here);
  };
  walk(profile.nodes[0]!.id, false);
  return hits;
}
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const { file } = place(node);
  const key = file.startsWith('node_modules/')
    ? file
        .split('/')
        .slice(0, file.split('/')[1]!.startsWith('@') ? 3 : 2)
        .join('/')
    : file;
  byFile.set(key, (byFile.get(key) ?? 0) + (node.hitCount ?? 0));
}
say('\nown time by file (node_modules by package):');
for (const [name, hits] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 40))
  say(`${((100 * hits) / total).toFixed(1).padStart(5)} %  ${name}`);
/** Samples with some frame of each source file on the stack (each sample counted once per file). */
const underFile = new Map<string, number>();
const walkFiles = (id: number, files: Set<string>) => {
  const node = byId.get(id)!;
  const { file } = place(node);
  const here = file.startsWith('src/') || file.startsWith('packages/') ? new Set(files).add(file) : files;
  for (const f of here) underFile.set(f, (underFile.get(f) ?? 0) + (node.hitCount ?? 0));
  for (const child of node.children ?? []) walkFiles(child, here);
};
walkFiles(profile.nodes[0]!.id, new Set());
const busy = total - (self.get('(idle) (native):0') ?? 0);
say(`\ninclusive by source file, as shares of busy samples (${busy}):`);
for (const [name, hits] of [...underFile].sort((a, b) => b[1] - a[1]).slice(0, 60))
  say(`${((100 * hits) / busy).toFixed(1).padStart(5)} %  ${name}`);
if (watched.length > 0) say('\ninclusive:');
for (const name of watched) say(`${((100 * inclusive(name)) / total).toFixed(1).padStart(5)} %  ${name}`);
