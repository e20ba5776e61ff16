/**
 * Webhooks at festival scale (run by bench/webhooks.ts): an endpoint with a backlog of pending
 * messages (1,000,000 by default, each with its failed attempt, written in one statement) is disabled
 * (`PATCH enabled:false`), then another with the same backlog is deleted, through the in-process app
 * with its worker and upkeep running. Measured: the answer's time, the time until the backlog reads
 * failed (or is gone), and meanwhile the time a healthy endpoint's test messages take to reach the
 * receiver, one after another.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Store } from '../src/store/store.ts';
import { admin, type App, appOn, type benchConfig, json, quantile } from './inject.ts';

export interface BacklogFigures {
  insertS: number;
  disableMs: number;
  failedS: number;
  deleteMs: number;
  purgedS: number;
  /** Healthy endpoint's messages: from POST …/test to the receiver, p50 and max (ms), and how many. */
  healthy: { p50: number; max: number; count: number };
}

/** Runs `statement` on the store's database directly (the backlog is not written through the API). */
export type Sql = (statement: string, values: unknown[]) => Promise<number>;

export function sqliteSql(file: string): Sql & { close: () => void } {
  const db = new Database(file);
  db.pragma('busy_timeout = 60000');
  const run = async (statement: string, values: unknown[]) => {
    const prepared = db.prepare(statement);
    if (!prepared.reader) return prepared.run(...values).changes;
    const result = prepared.all(...values) as { n?: number }[];
    return Number(result[0]?.n ?? 0);
  };
  return Object.assign(run, { close: () => db.close() });
}

export async function postgresSql(url: string): Promise<Sql & { close: () => Promise<void> }> {
  const client = new pg.Client(url);
  await client.connect();
  const run = async (statement: string, values: unknown[]) => {
    const result = await client.query<{ n?: string }>(statement, values);
    return Number(result.rows[0]?.n ?? 0);
  };
  return Object.assign(run, { close: () => client.end() });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (since: number) => (performance.now() - since) / 1000;

/** `count` pending messages of the endpoint, due in an hour, each with its failed attempt. */
async function writeBacklog(sql: Sql, postgres: boolean, webhookId: string, count: number): Promise<void> {
  const now = new Date();
  const due = new Date(now.getTime() + 3600_000).toISOString();
  const values = [webhookId, now.toISOString(), due, count];
  if (postgres) {
    await sql(
      `WITH messages AS (
         INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state,
           next_attempt_at, attempt_count, schedule_step)
         SELECT 'msg_' || md5($1 || g), $1, 'ticket.checked_in', '{"eid":"evt_backlog","tid":"T' || g || '"}', g, $2,
           'pending', $3, 1, 1
           FROM generate_series(1, $4::int) g
         RETURNING message_id)
       INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms)
       SELECT message_id, 1, $2, 503, NULL, 12 FROM messages`,
      values,
    );
    return;
  }
  const named = [{ id: webhookId, now: now.toISOString(), due, count }];
  await sql(
    `WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < @count)
     INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at,
       attempt_count, schedule_step)
     SELECT 'msg_' || @id || '_' || n, @id, 'ticket.checked_in', '{"eid":"evt_backlog","tid":"T' || n || '"}', n, @now,
       'pending', @due, 1, 1 FROM g`,
    named,
  );
  await sql(
    `INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms)
     SELECT message_id, 1, @now, 503, NULL, 12 FROM webhook_messages WHERE webhook_id = @id`,
    [{ id: webhookId, now: now.toISOString() }],
  );
}

async function endpoint(app: App, url: string): Promise<string> {
  const { webhook_id } = await json<{ webhook_id: string }>(
    app.inject({ method: 'POST', url: '/admin/v1/webhooks', headers: admin, payload: { url, event_types: ['*'] } }),
  );
  return webhook_id;
}

/** Sends the healthy endpoint one test message after another while `busy()`; each one's time to the receiver. */
async function healthyWhile(app: App, webhookId: string, received: () => number, busy: () => boolean) {
  const latencies: number[] = [];
  while (busy()) {
    const before = received();
    const sent = performance.now();
    await json(app.inject({ method: 'POST', url: `/admin/v1/webhooks/${webhookId}/test`, headers: admin }));
    while (received() === before && performance.now() - sent < 30_000) await sleep(2);
    latencies.push(performance.now() - sent);
    await sleep(100);
  }
  return latencies;
}

export async function backlogRun(options: {
  store: Store;
  sql: Sql;
  postgres: boolean;
  config: ReturnType<typeof benchConfig>;
  receiver: { url: string; distinct: () => number };
  count: number;
}): Promise<BacklogFigures> {
  const { store, sql, postgres, receiver, count } = options;
  const app = await appOn(options.config, store);
  await app.ready();
  const healthy = await endpoint(app, receiver.url);
  const pendingOf = (webhookId: string) =>
    sql(
      postgres
        ? `SELECT count(*) AS n FROM webhook_messages WHERE webhook_id = $1 AND state = 'pending'`
        : `SELECT count(*) AS n FROM webhook_messages WHERE webhook_id = ? AND state = 'pending'`,
      [webhookId],
    );
  const anyOf = (webhookId: string) =>
    sql(
      postgres
        ? 'SELECT count(*) AS n FROM (SELECT 1 FROM webhook_messages WHERE webhook_id = $1 LIMIT 1) one'
        : 'SELECT count(*) AS n FROM (SELECT 1 FROM webhook_messages WHERE webhook_id = ? LIMIT 1)',
      [webhookId],
    );

  const disabled = await endpoint(app, receiver.url);
  let started = performance.now();
  await writeBacklog(sql, postgres, disabled, count);
  const insertS = seconds(started);
  let sweeping = true;
  const latencies = healthyWhile(app, healthy, receiver.distinct, () => sweeping);
  started = performance.now();
  await json(
    app.inject({
      method: 'PATCH',
      url: `/admin/v1/webhooks/${disabled}`,
      headers: admin,
      payload: { enabled: false },
    }),
  );
  const disableMs = performance.now() - started;
  while ((await pendingOf(disabled)) > 0) await sleep(250);
  const failedS = seconds(started);

  const deleted = await endpoint(app, receiver.url);
  sweeping = false;
  const during = await latencies;
  await writeBacklog(sql, postgres, deleted, count);
  sweeping = true;
  const moreLatencies = healthyWhile(app, healthy, receiver.distinct, () => sweeping);
  started = performance.now();
  const answer = await app.inject({ method: 'DELETE', url: `/admin/v1/webhooks/${deleted}`, headers: admin });
  if (answer.statusCode !== 204) throw new Error(`DELETE answered ${answer.statusCode} ${answer.body}`);
  const deleteMs = performance.now() - started;
  while ((await anyOf(deleted)) > 0) await sleep(250);
  const purgedS = seconds(started);
  sweeping = false;
  const all = during.concat(await moreLatencies);
  await app.close();
  return {
    insertS,
    disableMs,
    failedS,
    deleteMs,
    purgedS,
    healthy: { p50: quantile(all, 0.5), max: Math.max(...all), count: all.length },
  };
}
