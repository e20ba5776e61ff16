import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it as plainIt } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FaultProxy } from '../helpers/fault-proxy.ts';
import { RedisSentinelCluster } from '../helpers/redis-sentinel.ts';
import { call, freePort, type RunningServer, startServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';
import { itUnless } from '../helpers/services.ts';

const ADMIN = 'sentinel-admin-token-0123456789abcdef';
const PREFIX = `sentinel-${process.pid}:`;
// An optional part, as the high-availability cluster: without the packages (CI installs them when
// it can), skipped with a loud line even under REQUIRE_SERVICES.
const missing = RedisSentinelCluster.unavailableBecause();
if (missing !== null) process.stderr.write(`\n!!! ${missing}: Redis Sentinel failover tests SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

const gauge = async (server: RunningServer) => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
};
const readiness = async (server: RunningServer) => {
  const res = await call(`${server.url}/readyz`);
  return { status: res.status, redis: (res.body.checks as { redis?: string } | undefined)?.redis };
};
const warnings = (server: RunningServer) =>
  (server.stdout() + server.stderr()).split('\n').filter((line) => line.includes('rate limits use this instance'));

describe('Redis found through Sentinel: a master, a replica and three Sentinels of the test’s own', () => {
  let cluster: RedisSentinelCluster;
  const servers: RunningServer[] = [];
  const dirs: string[] = [];

  before(async () => {
    if (missing) return;
    cluster = await RedisSentinelCluster.start({ downAfterMs: 3000 });
    for (const name of ['a', 'b']) {
      const dir = mkdtempSync(join(tmpdir(), `issuer-sentinel-${name}-`));
      dirs.push(dir);
      servers.push(
        await startServer({
          DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
          REDIS_SENTINELS: cluster.sentinelsEnv,
          REDIS_SENTINEL_MASTER: cluster.masterName,
          REDIS_KEY_PREFIX: PREFIX,
          ADMIN_TOKEN: ADMIN,
          TRUST_PROXY: 'true',
          RATE_LIMIT_NOT_FOUND_PER_IP: '2',
          RATE_LIMIT_WINDOW_S: '3600',
          LOG_LEVEL: 'warn',
        }),
      );
    }
  });
  after(async () => {
    if (missing) return;
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await cluster?.destroy();
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  let clientIp = 0;
  /**
   * Whether the two instances count in one place: a client (a fresh address each time) spends its two
   * unknown-route requests on A; B then refuses its third only when it sees A's count.
   */
  const limitsShared = async (): Promise<boolean> => {
    const [a, b] = servers as [RunningServer, RunningServer];
    const headers = { 'x-forwarded-for': `10.9.${Math.floor(++clientIp / 250)}.${clientIp % 250}` };
    for (let i = 0; i < 2; i++) {
      const res = await call(`${a.url}/no-such-page`, { headers });
      assert.equal(res.status, 404, `A counts the first two (${res.status})`);
    }
    return (await call(`${b.url}/no-such-page`, { headers })).status === 429;
  };
  const keysOn = async (port: number) => cluster.ask(port, (c) => c.keys(`${PREFIX}*`));

  it('a silent Sentinel first in the list is passed over: the others name the master within seconds', async () => {
    const silent = await FaultProxy.start({
      host: '127.0.0.1',
      port: Number(cluster.sentinelsEnv.split(',')[0]!.split(':')[1]),
    });
    silent.set('hang');
    const dir = mkdtempSync(join(tmpdir(), 'issuer-sentinel-silent-'));
    const server = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      REDIS_SENTINELS: `127.0.0.1:${silent.port},${cluster.sentinelsEnv}`,
      REDIS_SENTINEL_MASTER: cluster.masterName,
      REDIS_KEY_PREFIX: PREFIX,
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'warn',
    });
    try {
      await eventually('limits shared despite the silent Sentinel', async () => (await gauge(server)) === '1', 8000);
    } finally {
      await server.stop();
      await silent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two instances share their counters on the master the Sentinels name; after the master is killed, again within 10 s of the promotion, with the gauge and /readyz following', async (t) => {
    const [a, b] = servers as [RunningServer, RunningServer];
    await eventually(
      'both instances count in Redis',
      async () => (await gauge(a)) === '1' && (await gauge(b)) === '1',
      10_000,
    );
    assert.deepEqual(await readiness(a), { status: 200, redis: 'ok' });
    assert.equal(await limitsShared(), true, 'B sees what A counted');
    const first = await cluster.master();
    assert.ok((await keysOn(first.port)).length > 0, 'the counters live on the master the Sentinels name');

    // Traffic on A only (a fresh client address a request, so none is refused): no answer may wait
    // for Redis, nor fail. B stays idle, so its gauge can follow only the connection itself.
    let stop = false;
    const answers: { status: number; ms: number }[] = [];
    const traffic = (async () => {
      for (let n = 0; !stop; n++) {
        const started = Date.now();
        const res = await call(`${a.url}/traffic-${n}`, {
          headers: { 'x-forwarded-for': `10.8.${n >> 8}.${n & 255}` },
        });
        answers.push({ status: res.status, ms: Date.now() - started });
        await sleep(50);
      }
    })();

    const killed = await cluster.killMaster();
    await eventually(
      'both gauges say limits are per instance',
      async () => (await gauge(a)) === '0' && (await gauge(b)) === '0',
      3000,
    );
    for (const server of servers) {
      assert.deepEqual(await readiness(server), { status: 200, redis: 'degraded' }, 'no instance is taken out');
    }
    const promoted = await cluster.waitForPromotion(killed.port);
    assert.notEqual(promoted.port, killed.port);

    await eventually('limits shared again', () => limitsShared(), 10_000);
    const sharedAt = Date.now();
    assert.ok(
      sharedAt - promoted.promotedAt <= 10_000,
      `shared ${sharedAt - promoted.promotedAt} ms after the promotion`,
    );
    await eventually(
      'both gauges say shared',
      async () => (await gauge(a)) === '1' && (await gauge(b)) === '1',
      10_000 - (Date.now() - promoted.promotedAt),
    );
    // The Sentinel that led the failover names the new master first; the others learn it from its
    // hello messages (every 2 s), so the first in the list may still name the dead one for a moment.
    await eventually(
      'the Sentinels name the promoted replica',
      async () => (await cluster.masters()).every((port) => port === promoted.port),
      10_000,
    );
    assert.ok((await keysOn(promoted.port)).length > 0, 'the counters now live on the promoted replica');
    // Each Sentinel's `+switch-master` makes the client reconnect, even one already on the promoted
    // replica: a late one can reach idle B after it found the new master, and /readyz reads `degraded`
    // for that reconnection. Ready again within seconds is what counts.
    await eventually('B ready with Redis again', async () => (await readiness(b)).redis === 'ok', 5000);

    t.diagnostic(
      `promoted ${promoted.promotedAt - killed.killedAt} ms after the kill; limits shared again ` +
        `${sharedAt - promoted.promotedAt} ms after the promotion`,
    );
    stop = true;
    await traffic;
    assert.ok(answers.length > 20, `requests ran through the failover (${answers.length})`);
    assert.deepEqual(
      answers.filter((answer) => answer.status !== 404),
      [],
      'every request answered, none refused or failed',
    );
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    assert.ok(slowest < 2000, `no request waited for Redis (slowest ${slowest} ms)`);
    for (const server of servers) assert.equal(warnings(server).length, 1, 'one warning an instance for the outage');
  });
});

describe('Sentinels unreachable from the start', () => {
  plainIt('the issuer starts and serves at once with its own counters: gauge 0, /readyz 200 degraded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-sentinel-none-'));
    const closed = [await freePort(), await freePort()].map((port) => `127.0.0.1:${port}`).join(',');
    const started = Date.now();
    const server = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      REDIS_SENTINELS: closed,
      REDIS_SENTINEL_MASTER: 'nobody',
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'warn',
    });
    try {
      assert.ok(Date.now() - started < 15_000, 'the start does not wait for Redis');
      assert.equal(await gauge(server), '0');
      assert.deepEqual(await readiness(server), { status: 200, redis: 'degraded' });
      const asked = Date.now();
      const event = await call(`${server.url}/admin/v1/events`, {
        bearer: ADMIN,
        body: { name: 'No Sentinel', event_date: new Date().toISOString() },
      });
      assert.equal(event.status, 201, 'the issuer serves without Redis');
      assert.ok(Date.now() - asked < 2000, 'without waiting for Redis');
      await eventually('one warning', async () => warnings(server).length === 1, 5000);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
