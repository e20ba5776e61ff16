import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../helpers/eventually.ts';
import { FaultProxy } from '../helpers/fault-proxy.ts';
import { brokenPromises, eventWithTickets, runScanners } from '../helpers/scan-load.ts';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability, redisForTests } from '../helpers/services.ts';

const ADMIN = 'fault-admin-token-0123456789abcdef';
const REQUEST_TIMEOUT_S = 6;
const postgres = await postgresAvailability('fault tests');
const redis = await redisForTests();
const skip = postgres.skip ?? (redis.available ? undefined : `Redis not reachable (${redis.reason})`);
const it = itUnless(skip);

describe('the issuer under faults of PostgreSQL and Redis, made by a proxy between them', () => {
  let pgProxy: FaultProxy;
  let redisProxy: FaultProxy;
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | null = null;

  before(async () => {
    if (skip) return;
    const database = await freshDatabase();
    dropDatabase = database.drop;
    pgProxy = await FaultProxy.start({ host: '127.0.0.1', port: 5432 });
    redisProxy = await FaultProxy.start({ host: '127.0.0.1', port: 6379 });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${pgProxy.port}`;
    server = await startServer({
      DATABASE_URL: url.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      REDIS_KEY_PREFIX: `faults-${process.pid}:`,
      ADMIN_TOKEN: ADMIN,
      REQUEST_TIMEOUT_S: String(REQUEST_TIMEOUT_S),
      RATE_LIMIT_CHECKIN_PER_KEY: '100000',
      RATE_LIMIT_ENROLL_PER_IP: '1000',
      LOG_LEVEL: 'warn',
    });
  });
  after(async () => {
    if (skip) return;
    await server?.stop();
    await pgProxy?.close();
    await redisProxy?.close();
    await dropDatabase?.();
  });

  const readiness = async () => call(`${server.url}/readyz`);
  const sharedGauge = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
  };

  it('20 scanners syncing while PostgreSQL is cut for 10 s, then Redis for 10 s: nothing answered is lost, no second valid, only 503s with Retry-After', async () => {
    const { eid, tickets } = await eventWithTickets(server.url, ADMIN, 'Faults', 2000);
    const tids = tickets.map((t) => t.tid);
    assert.equal(await sharedGauge(), '1', 'limits live in Redis to begin with');

    let stop = false;
    const { report, done } = await runScanners({
      base: server.url,
      admin: ADMIN,
      eid,
      tids,
      scanners: 20,
      pauseMs: 100,
      requestTimeoutMs: (REQUEST_TIMEOUT_S + 2) * 1000,
      until: () => stop,
    });
    await sleep(2000);

    // PostgreSQL goes away (connections reset, new ones refused), then goes silent.
    pgProxy.set('reset');
    await eventually(
      '/readyz says the store fails',
      async () => {
        const ready = await readiness();
        const checks = (ready.body.error as { details: { checks: Record<string, string> } }).details.checks;
        return ready.status === 503 && checks.store === 'error' && ready.headers.get('retry-after') !== null;
      },
      3000,
    );
    await sleep(4000);
    pgProxy.set('hang');
    await sleep(5000);
    pgProxy.set('pass');
    const restored = Date.now();
    const recovery = await eventually(
      'a check-in is answered 200 again',
      async () => report.okTimes.some((t) => t > restored),
      5000,
    );
    assert.ok(recovery <= 5000, `served again ${recovery} ms after PostgreSQL was back`);
    await eventually('/readyz is ready again', async () => (await readiness()).status === 200, 5000);

    // Redis goes silent, then away; the gates keep going on each instance's own counters.
    await sleep(1000);
    const redisCut = Date.now();
    redisProxy.set('hang');
    await eventually('the gauge says limits are local', async () => (await sharedGauge()) === '0', 5000);
    const degraded = await readiness();
    assert.equal(degraded.status, 200, 'a Redis outage takes no instance out of a load balancer');
    assert.deepEqual(degraded.body.checks, { store: 'ok', redis: 'degraded' });
    await sleep(4000);
    redisProxy.set('reset');
    await sleep(5000);
    redisProxy.set('pass');
    const redisBack = Date.now();
    const shared = await eventually('limits are shared again', async () => (await sharedGauge()) === '1', 10_000);
    assert.ok(shared <= 10_000);
    await sleep(1000);
    stop = true;
    await done;

    assert.deepEqual(report.violations, [], 'no 5xx but 503 with Retry-After');
    assert.ok(
      report.slowestMs <= (REQUEST_TIMEOUT_S + 1) * 1000,
      `every answer within REQUEST_TIMEOUT_S (slowest ${report.slowestMs} ms)`,
    );
    assert.ok(report.retried > 0, 'the cut was felt: scanners had to retry');
    const during = report.unavailableTimes.filter((t) => t > redisCut + 500 && t < redisBack);
    assert.deepEqual(during, [], 'no 503 while only Redis was cut');
    assert.deepEqual(await brokenPromises(server.url, ADMIN, eid, report), []);
    assert.ok(report.answers.size > 500, `scans were answered (${report.answers.size})`);
    const warnings = server
      .stderr()
      .split('\n')
      .concat(server.stdout().split('\n'))
      .filter((line) => line.includes('rate limits use this instance'));
    assert.equal(warnings.length, 1, 'one warning for the Redis cut');
    assert.equal(server.process.exitCode, null, 'the issuer still runs');
  });

  it('Redis down from the start: limits counted in process, gauge 0, one warning, no 5xx, shared once Redis answers', async () => {
    const proxy = await FaultProxy.start({ host: '127.0.0.1', port: 6379 });
    proxy.set('reset');
    const dir = mkdtempSync(join(tmpdir(), 'issuer-redis-'));
    const issuer = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: `faults-start-${process.pid}:`,
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'warn',
    });
    try {
      const gauge = async () => {
        const res = await fetch(`${issuer.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
        return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
      };
      assert.equal(await gauge(), '0');
      const ready = await call(`${issuer.url}/readyz`);
      assert.equal(ready.status, 200, 'ready: the instance serves with its own counters');
      assert.deepEqual(ready.body.checks, { store: 'ok', redis: 'degraded' });
      const event = await call(`${issuer.url}/admin/v1/events`, {
        bearer: ADMIN,
        body: { name: 'No Redis', event_date: new Date().toISOString() },
      });
      assert.equal(event.status, 201, 'the issuer serves without Redis');
      await sleep(4500);
      const warnings = () =>
        (issuer.stdout() + issuer.stderr()).split('\n').filter((l) => l.includes('rate limits use this instance'));
      assert.equal(warnings().length, 1, 'one warning');
      proxy.set('pass');
      await eventually('limits are shared once Redis answers', async () => (await gauge()) === '1', 10_000);
      assert.equal(warnings().length, 1, 'still one warning');
    } finally {
      await issuer.stop();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
