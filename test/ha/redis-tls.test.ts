import assert from 'node:assert/strict';
import { randomBytes, X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { itUnless } from '../helpers/services.ts';
import { Authority } from './certificates.ts';
import { RunDirectory, until } from './processes.ts';
import { MASTER_NAME, RedisCluster, redisClusterMissing } from './redis-cluster.ts';

// An optional part, as the other cluster tests: without the packages, skipped with a loud line.
const missing = redisClusterMissing();
if (missing !== null) process.stderr.write(`\n!!! ${missing}: Redis TLS tests SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

/** The SHA-256 fingerprint of the certificate the TLS port `port` serves (its authority `ca`). */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: readFileSync(ca) }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.destroy();
    });
    // Without a client certificate Redis closes the connection, after its own certificate was seen.
    socket.on('error', reject);
  });
}

const ADMIN = 'redis-tls-admin-token-0123456789abcdef';
const PREFIX = `redis-tls-${process.pid}:`;

describe('deploy/redis/ over TLS: Redis and its Sentinels speak only TLS, to a client with a certificate of their authority', () => {
  let run: RunDirectory;
  let redis: RedisCluster;
  let authority: Authority;
  let issuerCertificate: { cert: string; key: string };
  const passwords = { redis: randomBytes(24).toString('hex'), sentinel: randomBytes(24).toString('hex') };
  const servers: RunningServer[] = [];

  const issuer = async (name: string, env: Record<string, string>) => {
    const server = await startServer({
      DATABASE_URL: `sqlite:${join(run.dir(name), 'issuer.db')}`,
      REDIS_KEY_PREFIX: PREFIX,
      ADMIN_TOKEN: ADMIN,
      ...env,
    });
    servers.push(server);
    return server;
  };
  const gauge = async (server: RunningServer) => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
  };
  const logOf = (server: RunningServer) => server.stdout() + server.stderr();
  const sentinelSettings = () => ({
    REDIS_SENTINELS: redis.sentinelList,
    REDIS_SENTINEL_MASTER: MASTER_NAME,
    REDIS_PASSWORD: passwords.redis,
    REDIS_SENTINEL_PASSWORD: passwords.sentinel,
    REDIS_SENTINEL_TLS: 'true',
    REDIS_TLS_CA: redis.ca,
  });

  before(async () => {
    if (missing) return;
    run = new RunDirectory('issuer-redis-tls-');
    authority = Authority.make(run.dir('tls'), 'redis');
    issuerCertificate = authority.issue('issuer-m1', ['127.0.0.1']);
    redis = await RedisCluster.start(run, passwords, authority);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await run?.destroy();
  });

  it('Redis and each Sentinel refuse a client in clear, even with the right password, and a TLS client without a certificate; with one, only the password lets it in', async () => {
    const [server] = redis.servers;
    const [sentinel] = redis.sentinels;
    const doors: [number, string, [string, ...string[]]][] = [
      [server!.port, passwords.redis, ['GET', 'x']],
      [sentinel!.port, passwords.sentinel, ['SENTINEL', 'masters']],
    ];
    for (const [port, password, command] of doors) {
      // Everything else being right, each refusal is the transport's.
      assert.ok((await redis.askOver('tls', port, password, ...command)) !== undefined);
      await assert.rejects(redis.askOver('plain', port, password, ...command), /Connection is closed/, 'in clear');
      await assert.rejects(
        redis.askOver('tls-without-certificate', port, password, ...command),
        /Connection is closed/,
      );
      await assert.rejects(redis.askOver('tls', port, undefined, ...command), /NOAUTH/);
    }
    assert.equal(await redis.ask(server!.port, 'CONFIG', 'GET', 'port').then(String), 'port,0');
  });

  it('the replica follows its master and the Sentinels know each other over TLS: no port in clear anywhere', async () => {
    const replication = String(await redis.ask(redis.servers[1]!.port, 'INFO', 'replication'));
    assert.match(replication, /master_link_status:up/);
    for (const sentinel of redis.sentinels) {
      const info = String(await redis.ask(sentinel.port, 'INFO', 'sentinel'));
      assert.match(info, new RegExp(`name=${MASTER_NAME},status=ok,.*slaves=1,sentinels=3`));
      const replicas = (await redis.ask(sentinel.port, 'SENTINEL', 'replicas', MASTER_NAME)) as string[][];
      assert.equal(replicas[0]![replicas[0]!.indexOf('port') + 1], String(redis.servers[1]!.port), 'the TLS port');
    }
  });

  it('an issuer with REDIS_SENTINEL_TLS and its certificate counts in the master, as one with a rediss:// REDIS_URL does', async () => {
    const client = { REDIS_TLS_CERT: issuerCertificate.cert, REDIS_TLS_KEY: issuerCertificate.key };
    const viaSentinels = await issuer('via-sentinels', { ...sentinelSettings(), ...client });
    const direct = await issuer('direct', {
      REDIS_URL: `rediss://127.0.0.1:${await redis.masterPort()}`,
      REDIS_PASSWORD: passwords.redis,
      REDIS_TLS_CA: redis.ca,
      ...client,
    });
    await until(
      'both count in Redis',
      async () => (await gauge(viaSentinels)) === '1' && (await gauge(direct)) === '1',
      15_000,
    );
    for (const server of [viaSentinels, direct]) {
      assert.equal((await call(`${server.url}/no-such-page`)).status, 404);
    }
    const keys = (await redis.ask(await redis.masterPort(), 'KEYS', `${PREFIX}*`)) as string[];
    assert.ok(keys.length > 0, 'the counters are in the master');
  });

  it('an issuer without a client certificate, or trusting another authority, is refused by Redis: it counts on its own with one warning and keeps serving', async () => {
    const stranger = Authority.make(run.dir('tls-other'), 'other');
    const withoutCertificate = await issuer('without-certificate', sentinelSettings());
    const otherAuthority = await issuer('other-authority', {
      ...sentinelSettings(),
      REDIS_TLS_CA: stranger.ca,
      REDIS_TLS_CERT: issuerCertificate.cert,
      REDIS_TLS_KEY: issuerCertificate.key,
    });
    for (const server of [withoutCertificate, otherAuthority]) {
      await until('the warning', () => logOf(server).includes('rate limits use this instance'), 15_000);
      assert.equal(await gauge(server), '0');
      assert.equal((await call(`${server.url}/readyz`)).status, 200, 'still ready: Redis is no reason to leave');
      assert.equal(logOf(server).match(/rate limits use this instance/g)?.length, 1, 'one warning, not one a retry');
    }
  });

  it('a renewed Redis certificate is served after CONFIG SET of the same paths, without a restart: the replica and the issuers stay connected', async () => {
    const master = await redis.masterPort();
    const [, certFile] = (await redis.ask(master, 'CONFIG', 'GET', 'tls-cert-file')) as string[];
    const [, keyFile] = (await redis.ask(master, 'CONFIG', 'GET', 'tls-key-file')) as string[];
    const renewed = authority.issue('redis-m1-renewed', ['127.0.0.1']);
    const fingerprint = (pem: string) => new X509Certificate(readFileSync(pem)).fingerprint256;
    assert.notEqual(await servedFingerprint(master, redis.ca), fingerprint(renewed.cert));
    copyFileSync(renewed.cert, certFile!);
    copyFileSync(renewed.key, keyFile!);
    assert.equal(await redis.ask(master, 'CONFIG', 'SET', 'tls-cert-file', certFile!, 'tls-key-file', keyFile!), 'OK');
    assert.equal(await servedFingerprint(master, redis.ca), fingerprint(renewed.cert));
    const replication = String(await redis.ask(redis.servers[1]!.port, 'INFO', 'replication'));
    assert.match(replication, /master_link_status:up/);
    const counting = servers.slice(0, 2);
    assert.deepEqual(await Promise.all(counting.map(gauge)), ['1', '1']);
  });

  it('after the master dies the Sentinels promote the replica over TLS, and the issuer that follows them counts there again', async (t) => {
    const viaSentinels = servers[0]!;
    const killed = Date.now();
    const master = await redis.killMaster();
    await until('a replica promoted', async () => (await redis.masterPort()) !== master.port, 30_000);
    const promoted = Date.now();
    await until('the issuer counting in Redis again', async () => (await gauge(viaSentinels)) === '1', 10_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${logOf(viaSentinels).slice(-3000)}`);
      },
    );
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    t.diagnostic(
      `promoted ${seconds(promoted - killed)} s after the kill, shared again ${seconds(Date.now() - promoted)} s later`,
    );
  });

  it('no key, no password reaches an issuer’s log', async () => {
    await sleep(200);
    const keyLines = readFileSync(issuerCertificate.key, 'utf8').split('\n').slice(1, -2);
    for (const server of servers) {
      const log = logOf(server);
      for (const line of keyLines) assert.ok(!log.includes(line), 'no line of the private key');
      assert.ok(!log.includes(passwords.redis) && !log.includes(passwords.sentinel), 'no password');
    }
  });
});
