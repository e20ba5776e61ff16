/**
 * Webhook delivery while PostgreSQL is cut: the worker's claims and records fail, the issuer neither
 * crashes nor floods its log, and once the database is back every message is delivered, once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultProxy } from '../helpers/fault-proxy.ts';
import { call, enrollScanner, freePort, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

const ADMIN = 'webhook-fault-admin-token-0123456789abcdef';
const postgres = await postgresAvailability('webhook delivery fault tests');
const it = itUnless(postgres.skip);

describe('webhook delivery while PostgreSQL is cut', () => {
  let proxy: FaultProxy;
  let server: RunningServer;
  let receiver: Receiver;
  let dropDatabase: (() => Promise<void>) | null = null;

  before(async () => {
    if (postgres.skip) return;
    const database = await freshDatabase();
    dropDatabase = database.drop;
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: 5432 });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const port = await freePort();
    receiver = await Receiver.start();
    server = await startServer({
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: url.toString(),
      ADMIN_TOKEN: ADMIN,
      REQUEST_TIMEOUT_S: '6',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE_S: '1,1,1,1,1,1,1,1,1,1',
      LOG_LEVEL: 'warn',
    });
  });
  after(async () => {
    if (postgres.skip) return;
    await server?.stop();
    await receiver?.close();
    await proxy?.close();
    await dropDatabase?.();
  });

  it('messages committed before a 4 s cut are delivered after it, each once; the issuer stays up', async () => {
    const event = await call(`${server.url}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Cut', event_date: new Date(Date.now() + 86_400_000).toISOString() },
    });
    const eid = String(event.body.eid);
    const issued = await call(`${server.url}/admin/v1/events/${eid}/tickets`, {
      bearer: ADMIN,
      body: { tickets: Array.from({ length: 40 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    });
    const tids = (issued.body.tickets as { tid: string }[]).map((t) => t.tid);
    const scanner = await enrollScanner(server.url, ADMIN, eid);
    const endpoint = await call(`${server.url}/admin/v1/webhooks`, {
      bearer: ADMIN,
      body: { url: receiver.url, event_types: ['ticket.checked_in'], eid },
    });
    // The receiver is slow: messages are still waiting when the database goes away.
    receiver.holdMs = 200;
    for (const tid of tids) {
      const res = await call(`${server.url}/api/v1/tickets/check-in`, {
        bearer: scanner.apiKey,
        body: {
          tid,
          eid,
          scanned_at: new Date().toISOString(),
          scanner_id: scanner.scannerId,
          idempotency_key: randomUUID(),
        },
      });
      assert.equal(res.body.status, 'valid');
    }
    proxy.set('reset');
    await sleep(4000);
    const during = await call(`${server.url}/readyz`);
    assert.equal(during.status, 503);
    proxy.set('pass');
    receiver.holdMs = 0;
    await receiver.waitFor(() => receiver.ids().size >= tids.length, 1, 30_000);
    const reported = [...new Map(receiver.requests.map((r) => [r.id, r])).values()].map(
      (r) => verify(String(endpoint.body.secret), r).data.tid,
    );
    assert.deepEqual(reported.sort(), [...tids].sort(), 'every check-in reported, each once');
    assert.deepEqual(receiver.overlaps, []);
    assert.equal(server.process.exitCode, null, 'the issuer is still running');
    const warnings = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('webhook delivery:'));
    assert.ok(warnings.length >= 1, 'the outage is noticed');
    assert.ok(warnings.length <= 6, `the outage is said a few times, not at every look (${warnings.length})`);
  });
});
