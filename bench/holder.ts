/**
 * Holders. The issuer over a real port (the build, as `npm start` runs it; SQLite on a temporary file)
 * with Apple Wallet configured (a test pass certificate, its key and a WWDR-like CA made with openssl,
 * as the tests make them), beside the bare node:http server measured in the same run: the holder page
 * `GET /t/<holder_token>`, its PDF `…/ticket.pdf` and its Apple pass `…/pass.pkpass`, each request for
 * another of the event's tickets. The PDF and the pass are drawn and signed on a pool of threads that
 * sheds load (a 503 with Retry-After while every thread is busy), so each is measured twice: one holder
 * at a time (what the pool serves) and a crowd (what it serves while refusing the rest). Answers are
 * counted by status: 200 served, 503 shed.
 *
 * Run: node --import tsx bench/holder.ts [tickets] [page requests] [file requests]
 * (defaults 1000, 5000, 2000). Prints a table; never fails.
 */
import { makeAppleFiles } from '../test/helpers/apple-certs.ts';
import { load, type LoadResult } from './load.ts';
import { startBare, startIssuer } from './processes.ts';
import { rmSync } from 'node:fs';

const TICKETS = Number(process.argv[2] ?? 1000);
const PAGES = Number(process.argv[3] ?? 5000);
const FILES = Number(process.argv[4] ?? 2000);
const CROWD = 50;
const BATCH = 1000;

const apple = makeAppleFiles();
const bare = await startBare();
const issuer = await startIssuer(null, apple.env).catch(async (error: unknown) => {
  await bare.stop();
  apple.remove();
  throw error;
});

/** Issues TICKETS tickets and returns the path of each holder page. */
async function holderPaths(): Promise<string[]> {
  const eid = await issuer.createEvent('Holder bench');
  const paths: string[] = [];
  for (let issued = 0; issued < TICKETS; issued += BATCH) {
    const tickets = Array.from({ length: Math.min(BATCH, TICKETS - issued) }, (_, i) => ({
      holder_name: `Holder ${issued + i}`,
      ticket_type: 'GA',
      email: `holder${issued + i}@example.org`,
    }));
    const answer = await issuer.admin<{ tickets: { holder_url: string }[] }>(
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      {
        tickets,
      },
    );
    paths.push(...answer.tickets.map((t) => new URL(t.holder_url).pathname));
  }
  return paths;
}

interface Row {
  what: string;
  result: LoadResult;
}

const rows: Row[] = [];
const measureBare = (what: string) =>
  load({ url: bare.url, connections: CROWD, amount: PAGES }).then((result) => rows.push({ what, result }));

try {
  const paths = await holderPaths();
  const at = (suffix: string) => (i: number) => `${paths[i % paths.length]!}${suffix}`;
  const run = (what: string, suffix: string, connections: number, amount: number) =>
    load({ url: issuer.url, connections, amount, path: at(suffix) }).then((result) => rows.push({ what, result }));
  // Warm-up: JIT, the pools' threads, the page cache; not reported.
  await load({ url: issuer.url, connections: 4, amount: 500, path: at('') });
  await load({ url: issuer.url, connections: 1, amount: 20, path: at('/ticket.pdf') });
  await load({ url: issuer.url, connections: 1, amount: 20, path: at('/pass.pkpass') });
  rows.length = 0;
  await measureBare('bare node:http (floor, before)');
  await run(`holder page, ${CROWD} connections`, '', CROWD, PAGES);
  await run('ticket.pdf, 1 connection', '/ticket.pdf', 1, Math.ceil(FILES / 10));
  await run(`ticket.pdf, ${CROWD} connections`, '/ticket.pdf', CROWD, FILES);
  await run('pass.pkpass, 1 connection', '/pass.pkpass', 1, Math.ceil(FILES / 10));
  await run(`pass.pkpass, ${CROWD} connections`, '/pass.pkpass', CROWD, FILES);
  await measureBare('bare node:http (floor, after)');
} finally {
  await issuer.stop();
  await bare.stop();
  rmSync(issuer.dataDir, { recursive: true, force: true });
  apple.remove();
}

const floors = rows.filter((r) => r.what.startsWith('bare')).map((r) => r.result.rate);
const floor = floors.reduce((sum, rate) => sum + rate, 0) / Math.max(1, floors.length);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const count = (r: LoadResult, code: string) => r.statuses[code] ?? 0;
const others = (r: LoadResult) =>
  Object.entries(r.statuses)
    .filter(([code]) => code !== '200' && code !== '503')
    .reduce((sum, [, n]) => sum + n, 0) + r.errors;
process.stdout.write(
  [
    '',
    `## Holders: the holder page, its PDF and its Apple pass over HTTP (SQLite, ${TICKETS} tickets, each request another)`,
    '',
    '| what | answers/s | 200/s | ratio to bare | p50 | p99 | 200 | 503 | other |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ what, result: r }) => {
      const total = Object.values(r.statuses).reduce((sum, n) => sum + n, 0) || 1;
      const served = (r.rate * count(r, '200')) / total;
      return `| ${what} | ${r.rate.toFixed(0)} | ${served.toFixed(0)} | ${(r.rate / floor).toFixed(3)} | ${ms(r.p50)} | ${ms(r.p99)} | ${count(r, '200')} | ${count(r, '503')} | ${others(r)} |`;
    }),
    '',
  ].join('\n'),
);
