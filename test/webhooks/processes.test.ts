/**
 * Webhooks with real issuer processes and a real receiver on 127.0.0.1: every check-in reported once,
 * no message attempted twice at the same moment (two instances on PostgreSQL, one on SQLite), a
 * receiver that comes back gets everything, and a kill -9 between the change and its delivery loses nothing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, enrollScanner, freePort, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

const ADMIN = 'webhooks-admin-token-0123456789abcdef';
const KEK = 'a'.repeat(64);
const pg = await postgresAvailability('webhooks on two PostgreSQL instances');

const dir = mkdtempSync(join(tmpdir(), 'issuer-webhooks-'));
const servers: RunningServer[] = [];
const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await Promise.all(receivers.map((r) => r.close()));
  rmSync(dir, { recursive: true, force: true });
});

function env(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: ADMIN,
    KEY_ENCRYPTION_KEY: KEK,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_CHECKIN_PER_KEY: '100000',
    RATE_LIMIT_ADMIN_PER_TOKEN: '100000',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

async function start(e: Record<string, string>): Promise<RunningServer> {
  const server = await startServer(e);
  servers.push(server);
  return server;
}

async function receiver(port = 0): Promise<Receiver> {
  const r = await Receiver.start(port);
  receivers.push(r);
  return r;
}

/** An event of tomorrow with `count` tickets, a scanner, and an endpoint for its check-ins at `url`. */
async function setUp(base: string, count: number, url: string) {
  const event = await call(`${base}/admin/v1/events`, {
    bearer: ADMIN,
    body: { name: 'Harbour Lights', event_date: new Date(Date.now() + 86_400_000).toISOString() },
  });
  const eid = String(event.body.eid);
  const issued = await call(`${base}/admin/v1/events/${eid}/tickets`, {
    bearer: ADMIN,
    body: { tickets: Array.from({ length: count }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
  });
  const tids = (issued.body.tickets as { tid: string }[]).map((t) => t.tid);
  const scanner = await enrollScanner(base, ADMIN, eid);
  const created = await call(`${base}/admin/v1/webhooks`, {
    bearer: ADMIN,
    body: { url, event_types: ['ticket.checked_in'], eid },
  });
  assert.equal(created.status, 201, created.text);
  return { eid, tids, scanner, webhookId: String(created.body.webhook_id), secret: String(created.body.secret) };
}

function checkIn(base: string, eid: string, tid: string, scanner: { scannerId: string; apiKey: string }) {
  return call(`${base}/api/v1/tickets/check-in`, {
    bearer: scanner.apiKey,
    body: {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
    },
  });
}

/** Every delivery of the endpoint, all pages. */
async function deliveries(base: string, webhookId: string) {
  const all: { message_id: string; state: string; attempts: unknown[] }[] = [];
  let cursor: string | null = null;
  do {
    const page = await call(
      `${base}/admin/v1/webhooks/${webhookId}/deliveries?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { bearer: ADMIN },
    );
    all.push(...(page.body.deliveries as typeof all));
    cursor = page.body.next_cursor as string | null;
  } while (cursor !== null);
  return all;
}

async function allDelivered(base: string, webhookId: string, count: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await deliveries(base, webhookId);
    if (list.length === count && list.every((d) => d.state === 'delivered')) return list;
    if (Date.now() > deadline) {
      const states = list.reduce<Record<string, number>>((n, d) => ({ ...n, [d.state]: (n[d.state] ?? 0) + 1 }), {});
      assert.fail(`after ${timeoutMs} ms: ${list.length} messages, ${JSON.stringify(states)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Exactly one message per ticket checked in, each verified, none attempted twice at the same moment. */
async function assertEachOnce(r: Receiver, secret: string, tids: string[], timeoutMs = 20_000) {
  await r.waitFor(() => r.ids().size >= tids.length, 1, timeoutMs);
  const firsts = new Map(r.requests.map((request) => [request.id, request]));
  assert.equal(firsts.size, tids.length, 'one message per check-in');
  const reported = [...firsts.values()].map((request) => {
    const payload = verify(secret, request);
    assert.equal(payload.type, 'ticket.checked_in');
    return String(payload.data.tid);
  });
  assert.deepEqual(reported.sort(), [...tids].sort(), 'every ticket, each once');
  assert.deepEqual(r.overlaps, [], 'no message attempted twice at the same moment');
}

describe('webhooks with real issuer processes', () => {
  it('300 concurrent check-ins on SQLite: exactly 300 messages, each delivered once', async () => {
    const r = await receiver();
    r.holdMs = 5;
    const server = await start(env(`sqlite:${join(dir, 'one.db')}`));
    const s = await setUp(server.url, 300, r.url);
    const answers = await Promise.all(s.tids.map((tid) => checkIn(server.url, s.eid, tid, s.scanner)));
    assert.ok(answers.every((a) => a.body.status === 'valid'));
    await assertEachOnce(r, s.secret, s.tids);
    await allDelivered(server.url, s.webhookId, 300);
  });

  itUnless(pg.skip)(
    '300 concurrent check-ins on two instances sharing PostgreSQL: exactly 300 messages, none attempted twice at once',
    async () => {
      const database = await freshDatabase();
      try {
        const r = await receiver();
        r.holdMs = 5;
        const a = await start(env(database.url));
        const b = await start(env(database.url));
        const s = await setUp(a.url, 300, r.url);
        const answers = await Promise.all(
          s.tids.map((tid, i) => checkIn(i % 2 === 0 ? a.url : b.url, s.eid, tid, s.scanner)),
        );
        assert.ok(answers.every((x) => x.body.status === 'valid'));
        await assertEachOnce(r, s.secret, s.tids);
        await allDelivered(b.url, s.webhookId, 300);
        await a.stop();
        await b.stop();
      } finally {
        await database.drop();
      }
    },
  );

  it('a receiver down for a while gets everything once it is back', async () => {
    const port = await freePort();
    const server = await start(
      env(`sqlite:${join(dir, 'down.db')}`, { WEBHOOK_RETRY_SCHEDULE_S: '1,1,1,1,1,1,1,1,1,1' }),
    );
    const s = await setUp(server.url, 20, `http://127.0.0.1:${port}/hook`);
    for (const tid of s.tids) assert.equal((await checkIn(server.url, s.eid, tid, s.scanner)).body.status, 'valid');
    // Nobody listens: attempts fail (connection refused) and are retried.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const failing = await call(`${server.url}/admin/v1/webhooks/${s.webhookId}`, { bearer: ADMIN });
    assert.notEqual(failing.body.failing_since, null);
    const r = await receiver(port);
    await assertEachOnce(r, s.secret, s.tids);
    const list = await allDelivered(server.url, s.webhookId, 20);
    assert.ok(
      list.every((d) => d.attempts.length >= 2),
      'each failed at least once first',
    );
  });

  it('kill -9 between the change and its delivery: delivered after the restart', async () => {
    const port = await freePort();
    const database = `sqlite:${join(dir, 'killed.db')}`;
    // A short timeout: a message claimed at the moment of the kill waits for its lease (the timeout + 20 s).
    const settings = { WEBHOOK_RETRY_SCHEDULE_S: '1,1,1,1,1,1,1,1,1,1', WEBHOOK_TIMEOUT_S: '2' };
    const first = await start(env(database, settings));
    const s = await setUp(first.url, 30, `http://127.0.0.1:${port}/hook`);
    for (const tid of s.tids) assert.equal((await checkIn(first.url, s.eid, tid, s.scanner)).body.status, 'valid');
    await first.stop('SIGKILL');
    const r = await receiver(port);
    const second = await start(env(database, settings));
    await assertEachOnce(r, s.secret, s.tids, 40_000);
    await allDelivered(second.url, s.webhookId, 30, 40_000);
  });

  it('an attempt cut off by kill -9 is made again after the restart, within WEBHOOK_TIMEOUT_S + 30 s', async () => {
    const r = await receiver();
    let hang = true;
    // While `hang`, the receiver never answers: the issuer is killed in the middle of the attempt.
    r.answer = () => (hang ? new Promise<never>(() => undefined) : { status: 200 });
    const database = `sqlite:${join(dir, 'cut-off.db')}`;
    const first = await start(env(database, { WEBHOOK_TIMEOUT_S: '2' }));
    const s = await setUp(first.url, 1, r.url);
    assert.equal((await checkIn(first.url, s.eid, s.tids[0]!, s.scanner)).body.status, 'valid');
    const [cut] = await r.waitFor(() => true);
    await first.stop('SIGKILL');
    hang = false;
    const second = await start(env(database, { WEBHOOK_TIMEOUT_S: '2' }));
    const restarted = Date.now();
    const attempts = await r.waitFor((request) => request.id === cut!.id, 2, 40_000);
    const after = attempts[1]!.at - restarted;
    assert.ok(after <= 32_000, `made again ${after} ms after the restart`);
    verify(s.secret, attempts[1]!);
    await allDelivered(second.url, s.webhookId, 1);
  });
});
