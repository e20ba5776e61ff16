/**
 * What sending an event's emails costs check-ins. Check-in through the HTTP app (in process,
 * app.inject, 16 at a time; SQLite on a temporary file, every commit durable, then PostgreSQL on a fresh
 * database when one answers at 127.0.0.1:5432) in rounds that alternate:
 * check-ins alone, then check-ins while the mail worker sends emails (each with its ticket PDF drawn and
 * attached) to a local SMTP server in a thread of its own. Each round with mail queues its own emails
 * with one `POST /admin/v1/events/{eid}/deliveries` just before its check-ins, enough that some are
 * still queued when the round ends (the table shows how many), and the queue is drained before the next
 * round. The ratio, per round, is what sending costs a check-in (target: at least 0.95).
 *
 * Run: node --import tsx bench/delivery-load.ts [check-ins per round] [emails per round] [rounds] [stores]
 * (defaults 3000, 100, 4, `sqlite,postgres`; more rounds steady the median on a shared machine). Prints a
 * table, a row per store with the median ratio and its spread (min–max); never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, appOn, benchConfig, CONCURRENCY, checkIns, eventWith, json, quantile } from './inject.ts';
import { freshPostgres } from './processes.ts';
import { startSmtpThread } from './smtp-thread.ts';

const PER_ROUND = Number(process.argv[2] ?? 3000);
const MAIL_PER_ROUND = Number(process.argv[3] ?? 100);
const ROUNDS = Number(process.argv[4] ?? 4);
const STORES = (process.argv[5] ?? 'sqlite,postgres').split(',');
const BATCH = 10_000;

const server = await startSmtpThread();
const config = benchConfig({ SMTP_URL: `smtp://127.0.0.1:${server.port}`, MAIL_FROM: 'bench@example.org' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Rounds {
  ratios: number[];
  alone: number[];
  sending: number[];
  sentDuring: number[];
  leftQueued: number[];
}

/** The alternating rounds on one store. */
async function rounds(store: Store): Promise<Rounds> {
  const app = await appOn(config, store, false);
  await app.ready();

  /** An event of `count` tickets, each with an email, whose tids are returned. */
  async function mailEvent(count: number): Promise<{ eid: string; tids: string[] }> {
    const { eid } = await json<{ eid: string }>(
      app.inject({
        method: 'POST',
        url: '/admin/v1/events',
        headers: admin,
        payload: { name: 'Delivery Bench', event_date: '2030-01-01T18:00:00Z' },
      }),
    );
    const tids: string[] = [];
    for (let start = 0; start < count; start += BATCH) {
      const tickets = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => ({
        holder_name: `Holder ${start + i}`,
        ticket_type: 'GA',
        email: `holder${start + i}@example.org`,
      }));
      const answer = await json<{ tickets: { tid: string }[] }>(
        app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/tickets`, headers: admin, payload: { tickets } }),
      );
      tids.push(...answer.tickets.map((t) => t.tid));
    }
    return { eid, tids };
  }
  const queue = (eid: string, tids: string[]) =>
    json(
      app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/deliveries`,
        headers: admin,
        payload: { tids, resend: true },
      }),
    );
  /** Waits until the store holds no queued email. */
  const drained = async () => {
    while ((await store.deliveries.countQueuedDeliveries()) > 0) await sleep(50);
  };

  const out: Rounds = { ratios: [], alone: [], sending: [], sentDuring: [], leftQueued: [] };
  try {
    const scanning = await eventWith(app, PER_ROUND * ROUNDS * 2 + 1000);
    const mailing = await mailEvent(MAIL_PER_ROUND * ROUNDS);
    // Warm-up: JIT, the PDF thread and the SMTP connection; not reported.
    await checkIns(app, scanning, scanning.tids.slice(PER_ROUND * ROUNDS * 2));
    await queue(mailing.eid, mailing.tids.slice(0, 5));
    await drained();
    for (let round = 0; round < ROUNDS; round++) {
      const slice = (n: number) => scanning.tids.slice((round * 2 + n) * PER_ROUND, (round * 2 + n + 1) * PER_ROUND);
      await drained();
      const alone = await checkIns(app, scanning, slice(0));
      const receivedBefore = server.received();
      await queue(mailing.eid, mailing.tids.slice(round * MAIL_PER_ROUND, (round + 1) * MAIL_PER_ROUND));
      const sending = await checkIns(app, scanning, slice(1));
      out.sentDuring.push(server.received() - receivedBefore);
      out.leftQueued.push(await store.deliveries.countQueuedDeliveries());
      out.alone.push(alone);
      out.sending.push(sending);
      out.ratios.push(sending / alone);
    }
    await drained();
  } finally {
    await app.close();
  }
  return out;
}

const results: { name: string; r: Rounds | null }[] = [];
try {
  if (STORES.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-delivery-load-'));
    const store = new SqliteStore(join(dir, 'issuer.db'));
    try {
      results.push({ name: 'SQLite', r: await rounds(store) });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (STORES.includes('postgres')) {
    const database = await freshPostgres();
    if (database === null) results.push({ name: 'PostgreSQL', r: null });
    else {
      const store = await PostgresStore.open(database.url);
      try {
        results.push({ name: 'PostgreSQL', r: await rounds(store) });
      } finally {
        await store.close();
        await database.drop();
      }
    }
  }
} finally {
  await server.stop();
}

const row = ({ name, r }: { name: string; r: Rounds | null }) =>
  r === null
    ? `| ${name} | skipped: no PostgreSQL | | | | | |`
    : `| ${name} | ${r.ratios.map((x) => x.toFixed(2)).join(', ')} | ${quantile(r.ratios, 0.5).toFixed(2)} (${Math.min(...r.ratios).toFixed(2)}–${Math.max(...r.ratios).toFixed(2)}) | ${Math.round(quantile(r.alone, 0.5))} | ${Math.round(quantile(r.sending, 0.5))} | ${r.sentDuring.join(', ')} | ${r.leftQueued.join(', ')} |`;
process.stdout.write(
  [
    '',
    '## Check-ins while an event’s emails are sending (a local SMTP server)',
    '',
    `Check-ins ${CONCURRENCY} at a time, ${ROUNDS} rounds of ${PER_ROUND} alone then ${PER_ROUND} while ${MAIL_PER_ROUND} emails send (target ≥ 0.95):`,
    '',
    '| store | sending/alone per round | median (min–max) | alone/s | sending/s | emails sent during each round | still queued after it |',
    '|---|---|---:|---:|---:|---|---|',
    ...results.map(row),
    '',
  ].join('\n'),
);
