/**
 * A flood of the people routes while the gates check in (CONTRACT.md, "Abuse of the people routes"):
 * an issuer process on SQLite (as `npm start` runs it, the compiled build, default settings but
 * `TRUST_PROXY` so that each flood request comes from an address of its own), and 32 connections that
 * send, as fast as answers come, sign-ins and invitation acceptances with a random `Authorization:
 * Bearer`, a random client address and a 1 KiB password (half of them to each route). Meanwhile a
 * scanner checks tickets in, 4 at a time: their p50 and p99, against the same check-ins with no
 * flood (target: p99 at most 250 ms during the flood). Beside them the bare node:http floor, at rest
 * and during the flood (the machine's own share of the slowdown), and what the flood got: its answers
 * by status, and the password hashes the issuer made and refused.
 *
 * Run: node --import tsx bench/sign-in-flood.ts [seconds per phase]   (default 15). Prints a table; never fails.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ADMIN_TOKEN, Issuer } from '../packages/scanner/test/issuer.ts';
import { quantile } from './inject.ts';
import { scannerOf, startBare, startScriptOf } from './processes.ts';

const SECONDS = Number(process.argv[2] ?? 15);
const FLOOD_CONNECTIONS = 32;
const GATE_CONCURRENCY = 4;

/** The flood, on a thread of its own so that it does not share the measuring event loop. */
const FLOOD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
const { url, connections, seconds } = workerData;
const until = Date.now() + seconds * 1000;
const statuses = {};
const password = 'p'.repeat(1024);
async function one(i) {
  const address = [10, randomBytes(1)[0], randomBytes(1)[0], randomBytes(1)[0]].join('.');
  const headers = {
    'content-type': 'application/json',
    authorization: 'Bearer sk_live_' + randomBytes(24).toString('base64url'),
    'x-forwarded-for': address,
  };
  const invitation = i % 2 === 1;
  const body = invitation
    ? { invite_token: 'inv_' + randomBytes(32).toString('base64url'), password }
    : { email: 'flood-' + randomBytes(6).toString('hex') + '@example.test', password };
  const res = await fetch(url + (invitation ? '/admin/v1/invitations/accept' : '/admin/v1/session'), {
    method: 'POST', headers, body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  statuses[res.status] = (statuses[res.status] || 0) + 1;
}
Promise.all(Array.from({ length: connections }, async (_, c) => {
  let i = c;
  while (Date.now() < until) {
    try { await one(i++); } catch { statuses.error = (statuses.error || 0) + 1; }
  }
})).then(() => parentPort.postMessage(statuses));
`;

function flood(url: string, seconds: number): Promise<Record<string, number>> {
  const worker = new Worker(FLOOD_SOURCE, { eval: true, workerData: { url, connections: FLOOD_CONNECTIONS, seconds } });
  return new Promise((resolve, reject) => {
    worker.once('message', (statuses: Record<string, number>) => {
      resolve(statuses);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** Requests made `concurrency` at a time for `seconds`; each one's time in ms. */
async function timed(seconds: number, request: () => Promise<void>): Promise<number[]> {
  const until = performance.now() + seconds * 1000;
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: GATE_CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await request();
        times.push(performance.now() - started);
      }
    }),
  );
  return times;
}

/** The issuer's password hashes so far, by result, from its metrics. */
async function hashes(issuer: Issuer): Promise<string> {
  const text = await (
    await fetch(`${issuer.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).text();
  const read = (result: string) =>
    new RegExp(`^issuer_password_hashes_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? '?';
  return `${read('hashed')} hashed, ${read('busy')} refused busy`;
}

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const stats = (times: number[]) => `${quantile(times, 0.5).toFixed(0)} / ${quantile(times, 0.99).toFixed(0)}`;

const bare = await startBare();
// Run as `npm start` runs it, with its rate limits (the bench's subject) but for check-ins per key.
const start = startScriptOf();
const issuer = await Issuer.start(
  { ...start.env, LOG_LEVEL: 'warn', TRUST_PROXY: 'true', RATE_LIMIT_CHECKIN_PER_KEY: '1000000000' },
  undefined,
  { built: true, nodeArgs: start.options },
);
try {
  const eid = await issuer.createEvent('Flood');
  const tickets = (await issuer.issue(eid, 5000)) as { tid: string }[];
  const scanner = await scannerOf(issuer, eid);
  let next = 0;
  const checkIn = async () => {
    const tid = tickets[next++ % tickets.length]!.tid;
    const res = await fetch(`${issuer.url}/api/v1/tickets/check-in`, {
      method: 'POST',
      headers: { ...scanner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        tid,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.id,
        idempotency_key: randomUUID(),
      }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`check-in answered ${res.status}`);
  };
  const bareRequest = async () => {
    const res = await fetch(`${bare.url}/`, { method: 'POST', body: '{"tid":"x"}' });
    await res.arrayBuffer();
  };
  const bareAtRest = await timed(SECONDS / 3, bareRequest);
  const atRest = await timed(SECONDS, checkIn);
  const flooding = flood(issuer.url, SECONDS + 2);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const [during, bareDuring] = [await timed(SECONDS / 2, checkIn), await timed(SECONDS / 3, bareRequest)];
  const statuses = await flooding;
  const lines = [
    '',
    `Sign-in flood (${FLOOD_CONNECTIONS} connections: random Bearer, random address, 1 KiB password; SQLite; ${GATE_CONCURRENCY} check-ins at a time)`,
    '',
    row(['', 'requests', 'p50 / p99 ms']),
    row(['---', '---:', '---:']),
    row(['bare node:http, at rest', bareAtRest.length, stats(bareAtRest)]),
    row(['bare node:http, during the flood', bareDuring.length, stats(bareDuring)]),
    row(['check-ins, no flood', atRest.length, stats(atRest)]),
    row(['check-ins, during the flood', during.length, stats(during)]),
    '',
    `Flood answers: ${Object.entries(statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ')}; password hashes: ${await hashes(issuer)}.`,
    `Check-in p99 during the flood: ${quantile(during, 0.99).toFixed(0)} ms (target: at most 250 ms).`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
} finally {
  await issuer.stop();
  await bare.stop();
}
