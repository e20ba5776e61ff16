/**
 * A backlog of 200,000 pending messages on PostgreSQL, with a real issuer process: disabling an
 * endpoint (PATCH, a 410) or deleting it answers within 0.5 s and reads at once, its backlog is failed
 * (or deleted) within a minute a batch at a time, and meanwhile another endpoint keeps receiving and
 * its deliveries are recorded. The backlog (each message with its failed attempt) is written with one
 * generate_series statement.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

const ADMIN = 'webhook-backlog-admin-token-0123456789abcdef';
const BACKLOG = 200_000;
/** The contract: within 2 s at 1,000,000 pending, proportionally less, and at most 0.5 s below 250,000. */
const ANSWER_MS = 500;
const postgres = await postgresAvailability('webhook backlog on PostgreSQL');
const it = itUnless(postgres.skip);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a backlog of 200,000 pending messages on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let db: pg.Client;
  let server: RunningServer;
  let receiver: Receiver;
  let healthy: string;

  before(async () => {
    if (postgres.skip) return;
    database = await freshDatabase();
    receiver = await Receiver.start();
    server = await startServer({
      DATABASE_URL: database.url,
      ADMIN_TOKEN: ADMIN,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      RATE_LIMIT_ADMIN_PER_TOKEN: '100000',
      LOG_LEVEL: 'warn',
    });
    db = new pg.Client(database.url);
    await db.connect();
    healthy = await endpoint();
  });
  after(async () => {
    if (postgres.skip) return;
    await server?.stop();
    await db?.end();
    await receiver?.close();
    await database?.drop();
  });

  async function endpoint(): Promise<string> {
    const created = await call(`${server.url}/admin/v1/webhooks`, {
      bearer: ADMIN,
      body: { url: receiver.url, event_types: ['*'] },
    });
    assert.equal(created.status, 201, created.text);
    return String(created.body.webhook_id);
  }

  /** 200,000 messages that failed once and wait for their retry in an hour, each with its attempt. */
  async function backlog(webhookId: string): Promise<void> {
    const now = new Date();
    await db.query(
      `WITH messages AS (
         INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state,
           next_attempt_at, attempt_count, schedule_step)
         SELECT 'msg_' || md5($1 || g), $1, 'ticket.checked_in', '{"eid":"evt_backlog","tid":"T' || g || '"}', g, $2,
           'pending', $3, 1, 1
           FROM generate_series(1, $4::int) g
         RETURNING message_id)
       INSERT INTO webhook_attempts (message_id, n, at, status_code, error, duration_ms)
       SELECT message_id, 1, $2, 503, NULL, 12 FROM messages`,
      [webhookId, now.toISOString(), new Date(now.getTime() + 3600_000).toISOString(), BACKLOG],
    );
  }

  async function count(webhookId: string, state: string | null): Promise<number> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_messages WHERE webhook_id = $1 AND ($2::text IS NULL OR state = $2)`,
      [webhookId, state],
    );
    return Number(rows[0]!.n);
  }

  async function within(ms: number, what: string, done: () => Promise<boolean>): Promise<number> {
    const started = Date.now();
    while (!(await done())) {
      if (Date.now() - started > ms) assert.fail(`${what}: not within ${ms / 1000} s`);
      await sleep(250);
    }
    return Date.now() - started;
  }

  /**
   * Sends the healthy endpoint a test message every 300 ms while `work` runs; each must reach the
   * receiver within 2 s and be recorded delivered.
   */
  async function healthyMeanwhile(work: () => Promise<void>): Promise<void> {
    const sent: { id: string; at: number }[] = [];
    let running = true;
    const sender = (async () => {
      while (running) {
        const answer = await call(`${server.url}/admin/v1/webhooks/${healthy}/test`, { bearer: ADMIN, body: {} });
        assert.equal(answer.status, 202, answer.text);
        sent.push({ id: String(answer.body.message_id), at: Date.now() });
        await sleep(300);
      }
    })();
    try {
      await work();
    } finally {
      running = false;
      await sender;
    }
    assert.ok(sent.length >= 1, 'messages sent meanwhile');
    await receiver.waitFor((r) => r.id === sent[sent.length - 1]!.id, 1, 5000);
    for (const { id, at } of sent) {
      const arrival = receiver.requests.find((r) => r.id === id);
      assert.ok(arrival, `${id} reached the receiver`);
      assert.ok(arrival.at - at <= 2000, `${id} arrived ${arrival.at - at} ms after it was sent`);
    }
    await within(5000, 'the healthy endpoint’s deliveries recorded', async () => {
      const page = await call(`${server.url}/admin/v1/webhooks/${healthy}/deliveries?limit=20`, { bearer: ADMIN });
      const states = new Map(
        (page.body.deliveries as { message_id: string; state: string }[]).map((d) => [d.message_id, d.state]),
      );
      return sent.slice(-10).every(({ id }) => states.get(id) === 'delivered');
    });
  }

  it('PATCH enabled:false answers within 0.5 s and reads disabled at once; the backlog reads failed within a minute', async () => {
    const webhookId = await endpoint();
    await backlog(webhookId);
    await healthyMeanwhile(async () => {
      const started = Date.now();
      const patched = await call(`${server.url}/admin/v1/webhooks/${webhookId}`, {
        method: 'PATCH',
        bearer: ADMIN,
        body: { enabled: false },
      });
      const took = Date.now() - started;
      assert.equal(patched.status, 200, patched.text);
      assert.ok(took <= ANSWER_MS, `answered in ${took} ms`);
      const read = await call(`${server.url}/admin/v1/webhooks/${webhookId}`, { bearer: ADMIN });
      assert.equal(read.body.enabled, false);
      await within(60_000, 'the backlog failed', async () => (await count(webhookId, 'pending')) === 0);
    });
    assert.equal(await count(webhookId, 'failed'), BACKLOG);
    const page = await call(`${server.url}/admin/v1/webhooks/${webhookId}/deliveries?limit=100`, { bearer: ADMIN });
    assert.ok((page.body.deliveries as { state: string }[]).every((d) => d.state === 'failed'));
  });

  it('DELETE answers within 0.5 s; the endpoint is gone at once and its messages within a minute', async () => {
    const webhookId = await endpoint();
    await backlog(webhookId);
    await healthyMeanwhile(async () => {
      const started = Date.now();
      const deleted = await call(`${server.url}/admin/v1/webhooks/${webhookId}`, { method: 'DELETE', bearer: ADMIN });
      const took = Date.now() - started;
      assert.equal(deleted.status, 204, deleted.text);
      assert.ok(took <= ANSWER_MS, `answered in ${took} ms`);
      assert.equal((await call(`${server.url}/admin/v1/webhooks/${webhookId}`, { bearer: ADMIN })).status, 404);
      await within(60_000, 'the messages deleted', async () => (await count(webhookId, null)) === 0);
    });
  });

  it('a 410 disables the endpoint within 2 s whatever its backlog; the backlog reads failed within a minute', async () => {
    const webhookId = await endpoint();
    await backlog(webhookId);
    receiver.answer = (r) => (r.body.includes(webhookId) ? { status: 410 } : { status: 200 });
    try {
      await healthyMeanwhile(async () => {
        await call(`${server.url}/admin/v1/webhooks/${webhookId}/test`, { bearer: ADMIN, body: {} });
        const [gone] = await receiver.waitFor((r) => r.body.includes(webhookId));
        await within(2000, 'disabled after the 410', async () => {
          const read = await call(`${server.url}/admin/v1/webhooks/${webhookId}`, { bearer: ADMIN });
          return read.body.enabled === false && read.body.disabled_reason === 'gone';
        });
        assert.ok(Date.now() - gone!.at <= 2500, 'read disabled within 2 s of the 410');
        await within(60_000, 'the backlog failed', async () => (await count(webhookId, 'pending')) === 0);
      });
    } finally {
      receiver.answer = () => ({ status: 200 });
    }
    assert.equal(await count(webhookId, 'failed'), BACKLOG + 1);
  });
});
