/**
 * Webhooks. (1) Check-in through the HTTP app (in process, app.inject; SQLite on a temporary file,
 * every commit durable, then a fresh PostgreSQL database when one answers) on an event with one
 * subscribed endpoint, the delivery worker running beside it, against the same app's check-ins on an
 * event no endpoint subscribes to: the ratio is what a webhook costs a check-in (target: at least
 * 0.85). Rounds alternate so both see the same machine; the outbox is drained between rounds, so each
 * round with the endpoint carries its own deliveries. (2) Delivery of 10,000 messages waiting in the
 * outbox (written by 10,000 check-ins while no worker ran): from the worker's start until the receiver
 * has had every webhook-id and the store has recorded every delivery (target: at most 10 s), with the
 * time the store's claims and recordings took. The receiver is node:http on 127.0.0.1 answering 200,
 * in a thread of its own (a receiver runs elsewhere; it should not share the issuer's event loop).
 * (3) A backlog (bench/webhook-backlog.ts): disabling, then deleting, an endpoint with 1,000,000
 * pending messages (target: the answer within 2 s; the backlog failed within a minute), while a
 * healthy endpoint keeps receiving.
 *
 * Run: node --import tsx bench/webhooks.ts [check-ins per round] [messages] [backlog]
 * (defaults 3000, 10000, 1000000).
 * Prints tables; never fails.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, type App, appOn, benchConfig, CONCURRENCY, checkIns, eventWith, json, quantile } from './inject.ts';
import { freshPostgres } from './processes.ts';
import { backlogRun, type BacklogFigures, postgresSql, sqliteSql } from './webhook-backlog.ts';

const PER_ROUND = Number(process.argv[2] ?? 3000);
const MESSAGES = Number(process.argv[3] ?? 10_000);
const BACKLOG = Number(process.argv[4] ?? 1_000_000);
const ROUNDS = 4;
const config = benchConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-webhooks-'));
// The receiver's thread counts distinct webhook-ids [0] and requests [1] where this thread can read them.
const RECEIVER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const counts = new Int32Array(workerData);
const seen = new Set();
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    seen.add(String(request.headers['webhook-id']));
    Atomics.store(counts, 0, seen.size);
    Atomics.add(counts, 1, 1);
    response.writeHead(200);
    response.end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** The receiver in its own thread: its URL, and what it has had so far. */
async function startReceiver() {
  const counts = new Int32Array(new SharedArrayBuffer(8));
  const thread = new Worker(RECEIVER_SOURCE, { eval: true, workerData: counts.buffer, execArgv: [] });
  const [port] = (await once(thread, 'message')) as [number];
  return {
    url: `http://127.0.0.1:${port}/hook`,
    distinct: () => Atomics.load(counts, 0),
    requests: () => Atomics.load(counts, 1),
    stop: () => thread.terminate(),
  };
}
const receiver = await startReceiver();

/** Subscribes the receiver to the event's check-ins; the endpoint's webhook_id. */
async function subscribe(app: App, eid: string): Promise<string> {
  const { webhook_id } = await json<{ webhook_id: string }>(
    app.inject({
      method: 'POST',
      url: '/admin/v1/webhooks',
      headers: admin,
      payload: { url: receiver.url, event_types: ['ticket.checked_in'], eid },
    }),
  );
  return webhook_id;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds (checked every `everyMs`); throws after `limitMs`. */
async function until(done: () => boolean | Promise<boolean>, what: string, everyMs = 10, limitMs = 300_000) {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await sleep(everyMs);
  }
}

// (1) What one subscribed endpoint costs a check-in, on each store: rounds alternate, the ratio is per round.
async function webhookCost(store: Store) {
  const spent = timeWorkerQueries(store);
  const app = await appOn(config, store);
  const plain = await eventWith(app, PER_ROUND * ROUNDS);
  const hooked = await eventWith(app, PER_ROUND * ROUNDS);
  await subscribe(app, hooked.eid);
  const receivedBefore = receiver.distinct();
  const ratios: number[] = [];
  const backlogs: number[] = [];
  const workerShare: number[] = [];
  const rates = { plain: [] as number[], hooked: [] as number[] };
  const drained = () => until(async () => (await store.webhooks.countPendingWebhookMessages()) === 0, 'draining', 50);
  for (let round = 0; round < ROUNDS; round++) {
    const slice = (t: { tids: string[] }) => t.tids.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
    await drained();
    const a = await checkIns(app, plain, slice(plain));
    const before = { ...spent };
    const b = await checkIns(app, hooked, slice(hooked));
    backlogs.push(await store.webhooks.countPendingWebhookMessages());
    // The worker's claims and recordings during the round, against the round's length.
    workerShare.push((spent.claimMs + spent.finishMs - before.claimMs - before.finishMs) / ((PER_ROUND / b) * 1000));
    rates.plain.push(a);
    rates.hooked.push(b);
    ratios.push(b / a);
  }
  await drained();
  await until(() => receiver.distinct() - receivedBefore >= PER_ROUND * ROUNDS, 'receiving');
  await app.close();
  return { ratios, rates, backlogs, workerShare, received: receiver.distinct() - receivedBefore };
}

/** Times the store's claims and recordings of attempts while the worker runs. */
function timeWorkerQueries(store: Store) {
  const spent = { claims: 0, claimMs: 0, claimed: 0, finishes: 0, finishMs: 0 };
  const claim = store.webhooks.claimWebhookMessages.bind(store.webhooks);
  const finish = store.webhooks.finishWebhookAttempts.bind(store.webhooks);
  store.webhooks.claimWebhookMessages = async (request) => {
    const started = performance.now();
    const claimed = await claim(request);
    spent.claimMs += performance.now() - started;
    spent.claims++;
    spent.claimed += claimed.length;
    return claimed;
  };
  store.webhooks.finishWebhookAttempts = async (results) => {
    const started = performance.now();
    await finish(results);
    spent.finishMs += performance.now() - started;
    spent.finishes++;
  };
  return spent;
}

// (2) Delivery of MESSAGES waiting in the outbox, from the worker's start.
async function delivery(store: Store) {
  const seeding = await appOn(config, store, false);
  const target = await eventWith(seeding, MESSAGES);
  const webhookId = await subscribe(seeding, target.eid);
  await checkIns(seeding, target, target.tids);
  await seeding.close();
  const pending = await store.webhooks.countPendingWebhookMessages();
  if (pending !== MESSAGES) throw new Error(`${pending} messages in the outbox, not ${MESSAGES}`);

  const receivedBefore = receiver.distinct();
  const requestsBefore = receiver.requests();
  const spent = timeWorkerQueries(store);
  const app = await appOn(config, store);
  const started = performance.now();
  await app.ready(); // the worker starts here
  await until(() => receiver.distinct() - receivedBefore >= MESSAGES, 'receiving', 5);
  const receivedS = (performance.now() - started) / 1000;
  await until(async () => (await store.webhooks.countPendingWebhookMessages()) === 0, 'recording', 5);
  const recordedS = (performance.now() - started) / 1000;
  const { deliveries } = await json<{ deliveries: { state: string }[] }>(
    app.inject({ method: 'GET', url: `/admin/v1/webhooks/${webhookId}/deliveries?limit=100`, headers: admin }),
  );
  if (deliveries.some((d) => d.state !== 'delivered')) throw new Error('a delivery is not recorded as delivered');
  await app.close();
  return { receivedS, recordedS, requests: receiver.requests() - requestsBefore, ...spent };
}

type Cost = Awaited<ReturnType<typeof webhookCost>>;
type Delivery = Awaited<ReturnType<typeof delivery>>;
const results: { name: string; cost: Cost | null; delivery: Delivery | null }[] = [];

const sqlite = new SqliteStore(join(dir, 'cost.db'));
const sqliteCost = await webhookCost(sqlite);
await sqlite.close();
const sqliteOutbox = new SqliteStore(join(dir, 'delivery.db'));
results.push({ name: 'SQLite', cost: sqliteCost, delivery: await delivery(sqliteOutbox) });
await sqliteOutbox.close();

const costDatabase = await freshPostgres();
if (costDatabase) {
  const pgStore = await PostgresStore.open(costDatabase.url);
  const cost = await webhookCost(pgStore);
  await pgStore.close();
  await costDatabase.drop();
  const deliveryDatabase = (await freshPostgres())!;
  const outbox = await PostgresStore.open(deliveryDatabase.url);
  results.push({ name: 'PostgreSQL', cost, delivery: await delivery(outbox) });
  await outbox.close();
  await deliveryDatabase.drop();
} else {
  process.stderr.write('PostgreSQL: no server answers; its rows are skipped\n');
  results.push({ name: 'PostgreSQL', cost: null, delivery: null });
}
// (3) A backlog of BACKLOG pending messages, disabled then deleted.
const backlogs: { name: string; figures: BacklogFigures | null }[] = [];
{
  const file = join(dir, 'backlog.db');
  const store = new SqliteStore(file);
  const sql = sqliteSql(file);
  backlogs.push({
    name: 'SQLite',
    figures: await backlogRun({ store, sql, postgres: false, config, receiver, count: BACKLOG }),
  });
  sql.close();
  await store.close();
  const database = await freshPostgres();
  if (database) {
    const pgStore = await PostgresStore.open(database.url);
    const pgSql = await postgresSql(database.url);
    const figures = await backlogRun({ store: pgStore, sql: pgSql, postgres: true, config, receiver, count: BACKLOG });
    backlogs.push({ name: 'PostgreSQL', figures });
    await pgSql.close();
    await pgStore.close();
    await database.drop();
  } else backlogs.push({ name: 'PostgreSQL', figures: null });
}
await receiver.stop();
rmSync(dir, { recursive: true, force: true });

const costRow = (name: string, cost: Cost | null) =>
  cost === null
    ? `| ${name} | skipped: no PostgreSQL | | | | | |`
    : `| ${name} | ${cost.ratios.map((r) => r.toFixed(2)).join(', ')} | ${quantile(cost.ratios, 0.5).toFixed(2)} | ${Math.round(quantile(cost.rates.plain, 0.5))} | ${Math.round(quantile(cost.rates.hooked, 0.5))} | ${cost.backlogs.join(', ')} | ${cost.workerShare.map((r) => r.toFixed(2)).join(', ')} |`;
const deliveryRow = (name: string, d: Delivery | null) =>
  d === null
    ? `| ${name} | skipped: no PostgreSQL | | | | | |`
    : `| ${name} | ${d.receivedS.toFixed(2)} | ${d.recordedS.toFixed(2)} | ${Math.round(MESSAGES / d.recordedS)} | ${d.requests} | ${d.claims} / ${Math.round(d.claimMs)} ms / ${(d.claimed / Math.max(1, d.claims)).toFixed(1)} | ${d.finishes} / ${Math.round(d.finishMs)} ms |`;
process.stdout.write(
  [
    '',
    '## Webhooks',
    '',
    `Check-in with one subscribed endpoint against none (${CONCURRENCY} at a time, ${ROUNDS} rounds of ${PER_ROUND}, target ≥ 0.85):`,
    '',
    '| store | hooked/plain per round | median | plain/s | hooked/s | pending after each hooked round | claims and recordings / round time |',
    '|---|---|---:|---:|---:|---|---|',
    ...results.map(({ name, cost }) => costRow(name, cost)),
    '',
    ...results.flatMap(({ name, cost }) =>
      cost === null
        ? []
        : [`${name}: the receiver had ${cost.received} distinct webhook-ids of ${PER_ROUND * ROUNDS}.`],
    ),
    '',
    `Delivery of ${MESSAGES} messages from the outbox to one receiver (target ≤ 10 s; worker defaults: 32 in flight per endpoint, claims of up to 200, a look every 250 ms):`,
    '',
    '| store | all received, s | all recorded, s | messages/s | requests | claims / time / messages per claim | recordings / time |',
    '|---|---:|---:|---:|---:|---|---|',
    ...results.map(({ name, delivery: d }) => deliveryRow(name, d)),
    '',
    `A backlog of ${BACKLOG} pending messages (each with its failed attempt): disabled, then (another) deleted, through the admin API (target: each answer ≤ 2 s, the backlog failed within a minute); a healthy endpoint's test messages meanwhile, one after another:`,
    '',
    '| store | backlog written, s | PATCH enabled:false, ms | all failed, s | DELETE, ms | all deleted, s | healthy endpoint meanwhile: p50 / max ms (messages) |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...backlogs.map(({ name, figures: f }) =>
      f === null
        ? `| ${name} | skipped: no PostgreSQL | | | | | |`
        : `| ${name} | ${f.insertS.toFixed(1)} | ${Math.round(f.disableMs)} | ${f.failedS.toFixed(1)} | ${Math.round(f.deleteMs)} | ${f.purgedS.toFixed(1)} | ${Math.round(f.healthy.p50)} / ${Math.round(f.healthy.max)} (${f.healthy.count}) |`,
    ),
    '',
  ].join('\n'),
);
