/**
 * Start-up: time from spawn to listening, and resident memory, of the built issuer started
 * as `npm start` starts it (node scripts/start.js, running dist/server.js) on a fresh SQLite file,
 * beside a bare node:http server started the same way (plain node, one JavaScript file) and the
 * sources run through tsx (`npm run dev`'s way), in rounds that take each in turn so all three see
 * the same machine. Memory is read 2 s after listening, and in IDLE_STARTS longer starts of the built
 * issuer (10 by default; 3 of the others), IDLE_PARALLEL at a time (2 by default: one per core), once
 * idle: after 30 s without a request, every time (V8
 * gives back the young generation that start-up grew only after some idle seconds, sooner in one start
 * than in another: the worst of them is what counts). Targets: listening within 1 s, idle RSS at most
 * 100 MiB.
 *
 * Run: node --import tsx bench/startup.ts [rounds]   (default 5). Prints a table; never fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptOf } from './processes.ts';

const ROUNDS = Number(process.argv[2] ?? 5);
/** When the memory of every start is read, after listening. */
const AFTER_START_MS = 2000;
/** When the memory of the idle starts of each is read, and how many there are. */
const IDLE_MS = 30_000;
const IDLE_STARTS = Number(process.env.IDLE_STARTS ?? 10);
/** How many idle starts run at once. */
const IDLE_PARALLEL = Number(process.env.IDLE_PARALLEL ?? 2);

const dir = mkdtempSync(join(tmpdir(), 'issuer-startup-'));
const bareFile = join(dir, 'bare.mjs');
writeFileSync(
  bareFile,
  `import { createServer } from 'node:http';
const server = createServer((request, response) => response.end('{"status":"ok"}'));
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stderr.write('listening on http://127.0.0.1:' + server.address().port + '\\n');
});
`,
);

const { env: START_ENV, options: START_OPTIONS } = startScriptOf();

interface Variant {
  name: string;
  args: string[];
  env?: Record<string, string>;
}
const variants: Variant[] = [
  { name: 'bare node:http', args: [bareFile] },
  { name: 'issuer, built (npm start)', args: [...START_OPTIONS, 'scripts/start.js'], env: START_ENV },
  { name: 'issuer, sources via tsx', args: ['--import', 'tsx', 'src/server.ts'] },
];

/** VmRSS of a process, in bytes. */
function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

/** One start: milliseconds from spawn to the "listening on" line, then the RSS `waitMs` later. */
async function startOnce(variant: Variant, round: number, waitMs: number): Promise<{ ms: number; rss: number }> {
  const data = join(dir, `${round}-${variants.indexOf(variant)}`);
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, variant.args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      DATABASE_URL: `sqlite:${join(data, 'issuer.db')}`,
      ADMIN_TOKEN: 'startup-bench-admin-token-0123456789',
      KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
      LOG_LEVEL: 'warn',
      ...variant.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const listening = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${variant.name} exited with ${code}:\n${err}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('listening on')) resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
  try {
    const ms = await listening;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return { ms, rss: rssOf(child.pid!) };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mib = (bytes: number) => bytes / 1024 / 1024;

// Built once before any timing: no measured start includes a build.
const built = spawnSync(process.execPath, ['scripts/build.js'], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);

const results = new Map(variants.map((v) => [v, [] as { ms: number; rss: number }[]]));
/** Each variant's idle RSS, one figure per start. */
const idle = new Map<Variant, number[]>();
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) results.get(variant)!.push(await startOnce(variant, round, AFTER_START_MS));
  }
  // The idle starts, IDLE_PARALLEL at a time (one per core by default): a start slowed by others
  // starting beside it reaches its idle state later, and its reading would be the crowd's.
  const idleStarts = variants.flatMap((variant) =>
    Array.from(
      { length: variant.name.startsWith('issuer, built') ? IDLE_STARTS : Math.min(IDLE_STARTS, 3) },
      (_, i) => () => startOnce(variant, ROUNDS + 1 + i, IDLE_MS).then(({ rss }) => ({ variant, rss })),
    ),
  );
  for (let i = 0; i < idleStarts.length; i += IDLE_PARALLEL) {
    const wave = await Promise.all(idleStarts.slice(i, i + IDLE_PARALLEL).map((start) => start()));
    for (const { variant, rss } of wave) idle.set(variant, [...(idle.get(variant) ?? []), rss]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const bare = results.get(variants[0]!)!;
const bareMs = median(bare.map((r) => r.ms));
const bareIdle = Math.max(...idle.get(variants[0]!)!);
process.stdout.write(
  `\nStart-up, ${ROUNDS} rounds: median [max] time to listening and RSS ${AFTER_START_MS / 1000} s after; ` +
    `RSS once idle ${IDLE_MS / 1000} s, median [max] of ${IDLE_STARTS} starts of the built issuer (3 of the others)\n\n`,
);
const columns = ['to listening', '× bare', 'RSS at +2 s', 'idle RSS', '× bare'];
process.stdout.write(`${'process'.padEnd(28)}${columns.map((c, i) => c.padStart([18, 8, 18, 18, 8][i]!)).join('')}\n`);
for (const [variant, runs] of results) {
  const ms = median(runs.map((r) => r.ms));
  const maxMs = Math.max(...runs.map((r) => r.ms));
  const rss = median(runs.map((r) => r.rss));
  const maxRss = Math.max(...runs.map((r) => r.rss));
  const idleRss = Math.max(...idle.get(variant)!);
  const idleMedian = median(idle.get(variant)!);
  process.stdout.write(
    `${variant.name.padEnd(28)}${`${ms.toFixed(0)} ms [${maxMs.toFixed(0)}]`.padStart(18)}${(ms / bareMs).toFixed(1).padStart(8)}` +
      `${`${mib(rss).toFixed(0)} MiB [${mib(maxRss).toFixed(0)}]`.padStart(18)}` +
      `${`${mib(idleMedian).toFixed(0)} MiB [${mib(idleRss).toFixed(0)}]`.padStart(18)}` +
      `${(idleRss / bareIdle).toFixed(1).padStart(8)}\n`,
  );
}
const issuer = variants[1]!;
const ms = median(results.get(issuer)!.map((r) => r.ms));
const idleMib = mib(Math.max(...idle.get(issuer)!));
process.stdout.write(
  `\nTargets (built issuer): listening within 1 s: ${ms <= 1000 ? 'met' : 'NOT met'} (median ${ms.toFixed(0)} ms); ` +
    `idle RSS at most 100 MiB every time: ${idleMib <= 100 ? 'met' : 'NOT met'} (at most ${idleMib.toFixed(0)} MiB in ${IDLE_STARTS} starts)\n`,
);
