import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { FakeSentinel } from '../helpers/fake-sentinel.ts';
import { type Node as RedisNode, startRedisServer } from '../helpers/redis-sentinel.ts';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { itUnless } from '../helpers/services.ts';

const ADMIN = 'sentinel-switch-admin-token-0123456789';
const MASTER_NAME = 'issuer-redis';
const missing = spawnSync('which', ['redis-server']).status !== 0 ? 'redis-server not installed' : null;
if (missing !== null) process.stderr.write(`\n!!! ${missing}: the Sentinel switch test SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

/**
 * The moment nobody can choose in a real failover: the master is gone, the issuer's client is asking
 * the Sentinels for the new one, and the `+switch-master` it subscribed to arrives just then. ioredis
 * cancels that question and then ends the client for good; the issuer has to start it again.
 */
describe('a Sentinel’s +switch-master while the issuer is asking for the new master', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-sentinel-switch-'));
  const masters: RedisNode[] = [];
  let sentinel: FakeSentinel;
  let issuer: RunningServer;

  before(async () => {
    if (missing) return;
    masters.push(await startRedisServer(dir, 'first'), await startRedisServer(dir, 'second'));
    sentinel = await FakeSentinel.start(MASTER_NAME, masters[0]!.port);
    issuer = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
      REDIS_SENTINEL_MASTER: MASTER_NAME,
      ADMIN_TOKEN: ADMIN,
    });
  });
  after(async () => {
    await issuer?.stop('SIGKILL');
    await sentinel?.close();
    for (const { process: child } of masters) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const shared = async () => {
    const res = await fetch(`${issuer.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return /^issuer_rate_limit_shared 1/m.test(await res.text());
  };

  it('the issuer counts in the new master again, and /readyz reads Redis ok', async () => {
    await eventually('the issuer counting in the first master', shared, 10_000);
    await eventually('the issuer listening for +switch-master', () => sentinel.listening > 0, 5_000);

    sentinel.hold();
    const [first, second] = masters as [RedisNode, RedisNode];
    const gone = once(first.process, 'exit');
    first.process.kill('SIGKILL');
    await gone;
    await eventually('the issuer asking the Sentinel for the master', () => sentinel.waiting > 0, 10_000);
    // The failover, told while the question waits: the issuer's listener hangs up once it has heard it.
    sentinel.switchMaster(second.port);
    await eventually('the issuer hearing +switch-master', () => sentinel.listening === 0, 5_000);
    sentinel.release();

    await eventually('the issuer counting in the new master', shared, 10_000);
    const ready = await call(`${issuer.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((ready.body.checks as { redis?: string }).redis, 'ok');
  });
});
