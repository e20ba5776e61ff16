import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { call, freePort, type RunningServer, startServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';
import { itUnless } from '../helpers/services.ts';

const ADMIN = 'redis-password-admin-token-0123456789';
const PREFIX = `redis-password-${process.pid}:`;
const tools = ['redis-server', 'redis-sentinel'].filter((tool) => spawnSync('which', [tool]).status !== 0);
// An optional part, as the Sentinel tests: without the packages, skipped with a loud line.
const missing = tools.length > 0 ? `${tools.join(' and ')} not installed (apt-get install redis-sentinel)` : null;
if (missing !== null) process.stderr.write(`\n!!! ${missing}: Redis password tests SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

const gauge = async (server: RunningServer) => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
};
const logOf = (server: RunningServer) => server.stdout() + server.stderr();

describe('REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD against a Redis and a Sentinel that ask for passwords', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-redis-password-'));
  const password = randomBytes(24).toString('hex');
  const sentinelPassword = randomBytes(24).toString('hex');
  const children: ChildProcess[] = [];
  const servers: RunningServer[] = [];
  const configured = new Map<RunningServer, Record<string, string>>();
  let direct: RunningServer;
  let redisPort = 0;
  let sentinelPort = 0;

  /** A redis-server or redis-sentinel of the test's own, its configuration (with the password) in a file of mode 0600. */
  const startProcess = (name: string, command: string, lines: string[]) => {
    const conf = join(dir, `${name}.conf`);
    writeFileSync(conf, `${lines.join('\n')}\n`, { mode: 0o600 });
    const log = openSync(join(dir, `${name}.log`), 'a');
    children.push(spawn(command, [conf], { stdio: ['ignore', log, log] }));
  };
  const ask = async (port: number, auth: string | undefined, ...command: string[]) => {
    const client = new Redis({
      port,
      host: '127.0.0.1',
      password: auth,
      lazyConnect: true,
      enableReadyCheck: false,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.call(command[0]!, ...command.slice(1));
    } finally {
      client.disconnect();
    }
  };
  const issuer = async (name: string, env: Record<string, string>) => {
    const server = await startServer({
      DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
      REDIS_KEY_PREFIX: PREFIX,
      ADMIN_TOKEN: ADMIN,
      TRUST_PROXY: 'true',
      RATE_LIMIT_NOT_FOUND_PER_IP: '2',
      RATE_LIMIT_WINDOW_S: '3600',
      ...env,
    });
    servers.push(server);
    configured.set(server, env);
    return server;
  };

  before(async () => {
    if (missing) return;
    [redisPort, sentinelPort] = [await freePort(), await freePort()];
    startProcess('redis', 'redis-server', [
      'bind 127.0.0.1',
      `port ${redisPort}`,
      `dir ${dir}`,
      'protected-mode yes',
      `requirepass ${password}`,
      'save ""',
      'appendonly no',
    ]);
    startProcess('sentinel', 'redis-sentinel', [
      'bind 127.0.0.1',
      `port ${sentinelPort}`,
      `dir ${dir}`,
      'protected-mode yes',
      `requirepass ${sentinelPassword}`,
      `sentinel monitor issuer-redis 127.0.0.1 ${redisPort} 1`,
      `sentinel auth-pass issuer-redis ${password}`,
    ]);
    await eventually(
      'the Sentinel to know the master',
      async () => {
        const info = String(await ask(sentinelPort, sentinelPassword, 'INFO', 'sentinel'));
        return /name=issuer-redis,status=ok/.test(info);
      },
      15_000,
    );
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  });

  let clientIp = 0;
  /** Whether `b` refuses a client's third unknown-route request after `a` counted its first two. */
  const limitsShared = async (a: RunningServer, b: RunningServer): Promise<boolean> => {
    const headers = { 'x-forwarded-for': `10.7.${Math.floor(++clientIp / 250)}.${clientIp % 250}` };
    for (let i = 0; i < 2; i++) assert.equal((await call(`${a.url}/no-such-page`, { headers })).status, 404);
    return (await call(`${b.url}/no-such-page`, { headers })).status === 429;
  };

  it('Redis and the Sentinel refuse a client without the password (the doors this setting opens are shut)', async () => {
    await assert.rejects(ask(redisPort, undefined, 'GET', 'x'), /NOAUTH/);
    await assert.rejects(ask(redisPort, undefined, 'AUTH', 'a-wrong-password-0123456789'), /WRONGPASS/);
    assert.equal(await ask(redisPort, password, 'PING'), 'PONG');
    await assert.rejects(ask(sentinelPort, undefined, 'SENTINEL', 'masters'), /NOAUTH/);
  });

  it('two instances with REDIS_PASSWORD share their counters, whether they find Redis at REDIS_URL or through the Sentinel with REDIS_SENTINEL_PASSWORD', async () => {
    direct = await issuer('direct', { REDIS_URL: `redis://127.0.0.1:${redisPort}`, REDIS_PASSWORD: password });
    const sentinel = await issuer('sentinel', {
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_MASTER: 'issuer-redis',
      REDIS_PASSWORD: password,
      REDIS_SENTINEL_PASSWORD: sentinelPassword,
    });
    await eventually(
      'both count in Redis',
      async () => (await gauge(direct)) === '1' && (await gauge(sentinel)) === '1',
      10_000,
    );
    assert.equal(await limitsShared(direct, sentinel), true, 'the second sees what the first counted');
    assert.equal(await limitsShared(sentinel, direct), true, 'and the other way round');
    const keys = (await ask(redisPort, password, 'KEYS', `${PREFIX}*`)) as string[];
    assert.ok(keys.length > 0, 'the counters are in the Redis that asked for the password');
  });

  it('a wrong REDIS_PASSWORD, or a wrong REDIS_SENTINEL_PASSWORD, is refused: the instance counts on its own with one warning, and keeps serving', async () => {
    const wrongRedis = await issuer('wrong-redis', {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_PASSWORD: 'a-wrong-password-0123456789',
    });
    const wrongSentinel = await issuer('wrong-sentinel', {
      REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
      REDIS_SENTINEL_MASTER: 'issuer-redis',
      REDIS_PASSWORD: password,
      REDIS_SENTINEL_PASSWORD: 'a-wrong-sentinel-password-0123',
    });
    for (const server of [wrongRedis, wrongSentinel]) {
      await eventually('the warning', async () => logOf(server).includes('rate limits use this instance'), 10_000);
      assert.equal(await gauge(server), '0');
      assert.equal((await call(`${server.url}/readyz`)).status, 200, 'still ready: Redis is no reason to leave');
      // Its own counters: a client's two requests on the right instance do not count here.
      assert.equal(await limitsShared(direct, server), false);
      // …but it still limits: its own third refusal comes from its own counters.
      const headers = { 'x-forwarded-for': `10.6.0.${++clientIp % 250}` };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(`${server.url}/no-such-page`, { headers })).status);
      assert.deepEqual(statuses, [404, 404, 429]);
    }
    assert.equal(logOf(wrongRedis).match(/rate limits use this instance/g)?.length, 1, 'one warning, not one a retry');
  });

  it('neither password ever reaches a log line, not even one a client pastes into a URL', async () => {
    // Each instance masks the passwords it was given (the one with REDIS_URL knows no Sentinel password).
    const NAMES = ['REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD'];
    for (const [server, env] of configured) {
      const query = NAMES.filter((name) => env[name] !== undefined).map((name) => `${name}=${env[name]}`);
      await call(`${server.url}/no-such-page?${query.join('&')}`);
    }
    await sleep(200);
    for (const [server, env] of configured) {
      const log = logOf(server);
      assert.ok(
        log.includes('/no-such-page?REDIS_PASSWORD=[redacted]'),
        `the request was logged, masked:\n${log.slice(-400)}`,
      );
      for (const name of NAMES) {
        if (env[name] !== undefined) assert.ok(!log.includes(env[name]), `${name} is not in the log`);
      }
    }
  });
});
