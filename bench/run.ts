/**
 * Throughput and memory of the hot paths, in process on a temporary SQLite file (every commit durable,
 * as in production). Speeds are also given as ratios to a baseline route measured in the same run,
 * because the machine's own speed varies. Prints a table; never fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { hashSecret } from '../src/domain/ids.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { withoutRateLimits } from '../src/config-limits.ts';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const CONCURRENCY = 16;
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-'));
const limits = withoutRateLimits();
const config = loadConfig({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', BASE_URL: 'https://bench.test', ...limits });
const store = new SqliteStore(join(dir, 'issuer.db'));
const app = await buildApp(config, {
  store,
  keyEncryptionKey: Buffer.alloc(32, 1),
  adminTokenHash: hashSecret(ADMIN),
});
const admin = { authorization: `Bearer ${ADMIN}` };

async function json<T>(res: Promise<{ statusCode: number; body: string }>): Promise<T> {
  const answer = await res;
  if (answer.statusCode >= 300) throw new Error(`${answer.statusCode} ${answer.body}`);
  return JSON.parse(answer.body) as T;
}

/** CPU time (this process, every thread) per request of the last `measure`, in µs: steadier than a rate on a busy machine. */
const cpuPerRequest: number[] = [];

/** Runs `count` requests, CONCURRENCY at a time; returns requests per second. */
async function measure(count: number, request: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await request(next++);
    }),
  );
  const used = process.cpuUsage(cpu);
  cpuPerRequest.push((used.user + used.system) / count);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return count / seconds;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const rssStart = process.memoryUsage().rss;

const { eid } = await json<{ eid: string }>(
  app.inject({
    method: 'POST',
    url: '/admin/v1/events',
    headers: admin,
    payload: { name: 'Bench', event_date: new Date(Date.now() + 86_400_000).toISOString() },
  }),
);

const bulkStarted = process.hrtime.bigint();
const tickets: { tid: string; ticket_token: string }[] = [];
for (let batch = 0; batch < 3; batch++) {
  const body = {
    tickets: Array.from({ length: 10_000 }, (_, i) => ({ holder_name: `Guest ${batch}-${i}`, ticket_type: 'GA' })),
  };
  tickets.push(
    ...(
      await json<{ tickets: typeof tickets }>(
        app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/tickets`, headers: admin, payload: body }),
      )
    ).tickets,
  );
}
const bulkSeconds = Number(process.hrtime.bigint() - bulkStarted) / 1e9;

const { token } = await json<{ token: string }>(
  app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/enrollment-tokens`, headers: admin, payload: {} }),
);
const scannerId = randomUUID();
const { api_key } = await json<{ api_key: string }>(
  app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token, scanner_id: scannerId } }),
);
const bearer = { authorization: `Bearer ${api_key}` };

const N = 5_000;
const baseline = await measure(N, () => app.inject({ url: '/.well-known/ticket-issuer.json' }));
const status = await measure(N, (i) =>
  app.inject({ url: `/api/v1/tickets/${tickets[i % tickets.length]!.tid}/status`, headers: bearer }),
);
const bodies = Array.from({ length: N }, (_, i) => ({
  tid: tickets[i]!.tid,
  eid,
  scanned_at: new Date().toISOString(),
  scanner_id: scannerId,
  idempotency_key: randomUUID(),
}));
const checkIn = await measure(N, (i) =>
  app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers: bearer, payload: bodies[i]! }),
);
const replay = await measure(N, (i) =>
  app.inject({ method: 'POST', url: '/api/v1/tickets/check-in', headers: bearer, payload: bodies[i]! }),
);
const signed = await measure(N, (i) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: bearer,
    payload: {
      ...bodies[i]!,
      tid: tickets[N + i]!.tid,
      ticket_token: tickets[N + i]!.ticket_token,
      idempotency_key: randomUUID(),
    },
  }),
);
const memory = process.memoryUsage();

const cpu = (i: number) => `${cpuPerRequest[i]!.toFixed(0)} µs`;
const rows: [string, string, string, string][] = [
  ['discovery document (baseline)', `${baseline.toFixed(0)} req/s`, '1.00', cpu(0)],
  ['status', `${status.toFixed(0)} req/s`, (status / baseline).toFixed(2), cpu(1)],
  [
    'check-in, first scan (durable commit, grouped)',
    `${checkIn.toFixed(0)} req/s`,
    (checkIn / baseline).toFixed(2),
    cpu(2),
  ],
  ['check-in, replay', `${replay.toFixed(0)} req/s`, (replay / baseline).toFixed(2), cpu(3)],
  ['check-in with ticket_token (Ed25519 verify)', `${signed.toFixed(0)} req/s`, (signed / baseline).toFixed(2), cpu(4)],
  ['bulk issue, 10,000 signed tickets per request', `${((3 * 10_000) / bulkSeconds).toFixed(0)} tickets/s`, '—', '—'],
];
process.stdout.write(
  `\nIssuer benchmark: ${CONCURRENCY} requests in flight, SQLite, every commit durable before its answer\n\n`,
);
process.stdout.write(`| what | throughput | ratio to baseline | CPU per request |\n|---|---|---|---|\n`);
for (const [what, rate, ratio, used] of rows) process.stdout.write(`| ${what} | ${rate} | ${ratio} | ${used} |\n`);
process.stdout.write(
  `\nmemory: rss ${mb(memory.rss)} (start ${mb(rssStart)}), heap used ${mb(memory.heapUsed)}, ` +
    `with ${tickets.length} tickets issued and ${3 * N} check-ins\n`,
);

await app.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
