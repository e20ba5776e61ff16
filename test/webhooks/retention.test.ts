/**
 * Retention: delivered and failed messages and their attempts are deleted WEBHOOK_RETENTION_DAYS after
 * they ended, by a real issuer on PostgreSQL (a fraction of a day here); pending ones stay. The
 * variable is checked at start like the others.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

const ADMIN = 'webhook-retention-admin-token-0123456789abcdef';
/** 4.32 s. */
const RETENTION_DAYS = '0.00005';
const postgres = await postgresAvailability('webhook retention on PostgreSQL');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WEBHOOK_RETENTION_DAYS', () => {
  it('is 30 by default, a positive number of days with fractions allowed, anything else stops the start', () => {
    assert.equal(loadConfig({}).webhooks.retentionDays, 30);
    assert.equal(loadConfig({ WEBHOOK_RETENTION_DAYS: '0.5' }).webhooks.retentionDays, 0.5);
    assert.equal(loadConfig({ WEBHOOK_RETENTION_DAYS: '90' }).webhooks.retentionDays, 90);
    for (const bad of ['0', '-1', 'thirty', '1e3', '0.0', '7 days']) {
      assert.throws(
        () => loadConfig({ WEBHOOK_RETENTION_DAYS: bad }),
        (error: unknown) => error instanceof ConfigError && /^WEBHOOK_RETENTION_DAYS must be/.test(error.message),
        bad,
      );
    }
  });
});

describe('retention of delivered and failed messages on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let db: pg.Client;
  let server: RunningServer;
  let receiver: Receiver;

  before(async () => {
    if (postgres.skip) return;
    database = await freshDatabase();
    receiver = await Receiver.start();
    server = await startServer({
      DATABASE_URL: database.url,
      ADMIN_TOKEN: ADMIN,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETENTION_DAYS: RETENTION_DAYS,
      WEBHOOK_RETRY_SCHEDULE_S: '3600',
      LOG_LEVEL: 'warn',
    });
    db = new pg.Client(database.url);
    await db.connect();
  });
  after(async () => {
    if (postgres.skip) return;
    await server?.stop();
    await db?.end();
    await receiver?.close();
    await database?.drop();
  });

  const deliveries = async (webhookId: string) =>
    (await call(`${server.url}/admin/v1/webhooks/${webhookId}/deliveries`, { bearer: ADMIN })).body.deliveries as {
      message_id: string;
      state: string;
    }[];

  async function endpoint(): Promise<string> {
    const created = await call(`${server.url}/admin/v1/webhooks`, {
      bearer: ADMIN,
      body: { url: receiver.url, event_types: ['*'] },
    });
    return String(created.body.webhook_id);
  }

  async function test(webhookId: string): Promise<string> {
    const answer = await call(`${server.url}/admin/v1/webhooks/${webhookId}/test`, { bearer: ADMIN, body: {} });
    const id = String(answer.body.message_id);
    await receiver.waitFor((r) => r.id === id, 1);
    return id;
  }

  async function statesOf(webhookId: string, ids: string[], wanted: string[]): Promise<string[]> {
    let states: string[] = [];
    for (let tries = 0; tries < 50 && states.join() !== wanted.join(); tries += 1) {
      const byId = new Map((await deliveries(webhookId)).map((d) => [d.message_id, d.state]));
      states = ids.map((id) => byId.get(id) ?? 'gone');
      await sleep(100);
    }
    return states;
  }

  itUnless(postgres.skip)('they are deleted with their attempts once it passed; pending ones stay', async () => {
    const kept = await endpoint();
    const gone = await endpoint();
    receiver.answer = (r) => (r.body.includes(gone) ? { status: 410 } : { status: 200 });
    const delivered = await test(kept);
    const failed = await test(gone);
    receiver.answer = () => ({ status: 500 });
    const pending = await test(kept);
    assert.deepEqual(await statesOf(kept, [delivered, pending], ['delivered', 'pending']), ['delivered', 'pending']);
    assert.deepEqual(await statesOf(gone, [failed], ['failed']), ['failed']);

    const firstEnded = receiver.requests.find((r) => r.id === delivered)!.at;
    const retention = Number(RETENTION_DAYS) * 86_400_000;
    let left = await deliveries(kept);
    while (left.length > 1 && Date.now() - firstEnded < retention + 10_000) {
      await sleep(200);
      left = await deliveries(kept);
    }
    assert.ok(Date.now() - firstEnded >= retention - 500, 'nothing went before the retention passed');
    assert.deepEqual(
      left.map((d) => [d.message_id, d.state]),
      [[pending, 'pending']],
    );
    for (let tries = 0; tries < 50 && (await deliveries(gone)).length > 0; tries += 1) await sleep(200);
    assert.deepEqual(await deliveries(gone), [], 'the failed message went too');
    const { rows } = await db.query<{ message_id: string }>(
      'SELECT DISTINCT message_id FROM webhook_attempts WHERE message_id = ANY($1::text[])',
      [[delivered, failed, pending]],
    );
    assert.deepEqual(
      rows.map((r) => r.message_id),
      [pending],
      'their attempts went with them',
    );
  });
});
