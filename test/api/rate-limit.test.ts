import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  enrollScanner,
  NO_LIMITS,
  scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { itUnless, redisForTests } from '../helpers/services.ts';

const LIMITS = {
  ...NO_LIMITS,
  RATE_LIMIT_ENROLL_PER_IP: '4',
  RATE_LIMIT_ENROLL_PER_TOKEN: '3',
  RATE_LIMIT_CHECKIN_PER_KEY: '3',
  RATE_LIMIT_STATUS_PER_KEY: '2',
  RATE_LIMIT_ADMIN_PER_TOKEN: '1000',
  RATE_LIMIT_NOT_FOUND_PER_IP: '2',
  RATE_LIMIT_WINDOW_S: '60',
};

/** A well-formed enrolment token the issuer never made. */
const guess = () => `st_${randomUUID().replace(/-/g, '')}${'A'.repeat(11)}`;

/** A client address no other test uses, so counters kept in Redis never carry over between runs. */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function assertLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  const body = res.json() as { error: { code: string; message: string; details: Record<string, unknown> } };
  assert.equal(res.statusCode, 429);
  const retryAfter = String(res.headers['retry-after']);
  assert.match(retryAfter, /^\d+$/, 'Retry-After is a whole number of seconds');
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60);
  assert.equal(body.error.code, 'RATE_LIMITED');
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.error.details.retry_after_seconds, Number(retryAfter));
}

function suite(label: string, open: (env: Record<string, string>) => Promise<TestIssuer>, skip?: string) {
  describe(`rate limits (${label})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    before(async () => {
      if (!skip) t = await open(LIMITS);
    });
    after(() => t?.close());

    const enroll = (token: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        remoteAddress: ip,
        payload: { token, scanner_id: 'x' },
      });

    it('enrolment is limited per client IP; another IP is not affected', async () => {
      const ip = freshIp();
      for (let i = 0; i < 4; i++) assert.equal((await enroll(guess(), ip)).statusCode, 400);
      assertLimited(await enroll(guess(), ip));
      assert.equal((await enroll(guess(), freshIp())).statusCode, 400);
    });

    it('enrolment is limited per presented token, whatever the IP', async () => {
      const token = guess();
      for (let i = 0; i < 3; i++) assert.equal((await enroll(token, freshIp())).statusCode, 400);
      assertLimited(await enroll(token, freshIp()));
      assert.equal((await enroll(guess(), freshIp())).statusCode, 400, 'another token is not affected');
    });

    it('check-in is limited per API key: a flood on one key never slows another', async () => {
      const s = await scenario(t.app);
      const other = await enrollScanner(t.app, s.eid, s.scannerId);
      const post = (apiKey: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          remoteAddress: '10.9.9.9',
          headers: { authorization: `Bearer ${apiKey}` },
          payload: checkInBody(s, '2026-06-01T12:00:00Z'),
        });
      for (let i = 0; i < 3; i++) assert.equal((await post(s.apiKey)).statusCode, 200);
      assertLimited(await post(s.apiKey));
      assert.equal((await post(other.apiKey)).statusCode, 200);
    });

    it('status is limited per API key', async () => {
      const s = await scenario(t.app);
      const other = await enrollScanner(t.app, s.eid);
      const get = (apiKey: string) =>
        t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${apiKey}` } });
      for (let i = 0; i < 2; i++) assert.equal((await get(s.apiKey)).statusCode, 200);
      assertLimited(await get(s.apiKey));
      assert.equal((await get(other.apiKey)).statusCode, 200);
    });

    it('unknown routes are limited per IP', async () => {
      const ip = freshIp();
      for (let i = 0; i < 2; i++)
        assert.equal((await t.app.inject({ url: '/nope', remoteAddress: ip })).statusCode, 404);
      assertLimited(await t.app.inject({ url: '/nope', remoteAddress: ip }));
    });
  });

  describe(`rate-limit windows (${label})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    before(async () => {
      if (!skip) t = await open({ ...LIMITS, RATE_LIMIT_ADMIN_PER_TOKEN: '2', RATE_LIMIT_WINDOW_S: '1' });
    });
    after(() => t?.close());

    it('the admin API is limited per admin credential, and the count resets after the window', async () => {
      const get = () =>
        t.app.inject({ url: '/admin/v1/signing-keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      let res = await get();
      // Align with a fresh window so the two allowed requests and the refused one fall in the same second.
      await sleep(1100);
      for (let i = 0; i < 2; i++) assert.equal((await get()).statusCode, 200);
      res = await get();
      assertLimited(res);
      assert.equal(res.headers['retry-after'], '1');
      await sleep(1100);
      assert.equal((await get()).statusCode, 200);
    });
  });
}

suite('in process', (env) => testIssuer({ env }));

const redis = await redisForTests();
// Without Redis the same tests are registered as skipped, so the summary counts each of them.
const skipRedis = redis.available ? undefined : redis.reason;
const redisClient = () => (redis.available ? redis.client() : assert.fail('Redis is not available'));
{
  // Each instance of a suite counts in its own key space, so runs and suites never see each other's counters.
  suite(
    'Redis',
    async (env) =>
      testIssuer({ env: { ...env, REDIS_KEY_PREFIX: `test-${randomUUID()}:` }, redis: await redisClient() }),
    skipRedis,
  );

  describe('rate limits shared through Redis by several instances', () => {
    const it = itUnless(skipRedis);
    let a: TestIssuer;
    let b: TestIssuer;
    before(async () => {
      if (skipRedis) return;
      const shared = { ...LIMITS, REDIS_KEY_PREFIX: `test-${randomUUID()}:` };
      a = await testIssuer({ env: shared, redis: await redisClient() });
      b = await testIssuer({ env: shared, redis: await redisClient() });
    });
    after(async () => {
      await a?.close();
      await b?.close();
    });

    it('two instances count one client together', async () => {
      const ip = freshIp();
      const enroll = (t: TestIssuer) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/scanners/enroll',
          remoteAddress: ip,
          payload: { token: guess(), scanner_id: 'x' },
        });
      for (const t of [a, b, a, b]) assert.equal((await enroll(t)).statusCode, 400);
      assertLimited(await enroll(a));
      assertLimited(await enroll(b));
    });

    it('counters are stored under a digest of the credential, never the credential itself', async () => {
      const s = await scenario(a.app);
      await a.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } });
      const client = await redisClient();
      const keys = await client.keys(`${a.config.redisKeyPrefix}*`);
      assert.ok(keys.length > 0);
      assert.equal(
        keys.some((k) => k.includes(s.apiKey) || k.includes(ADMIN_TOKEN)),
        false,
      );
      client.disconnect();
    });

    it('every key is named by the prefix and the limit: <REDIS_KEY_PREFIX>rate:<limit>:…', async () => {
      const s = await scenario(a.app);
      await a.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } });
      await a.app.inject({ url: '/nowhere', remoteAddress: freshIp() });
      const client = await redisClient();
      const keys = await client.keys(`${a.config.redisKeyPrefix}*`);
      client.disconnect();
      const names = new Set(keys.map((k) => k.slice(a.config.redisKeyPrefix.length).split(':').slice(0, 2).join(':')));
      assert.ok(names.has('rate:status') && names.has('rate:not-found') && names.has('rate:admin'), [...names].join());
      for (const key of keys) {
        assert.match(
          key.slice(a.config.redisKeyPrefix.length),
          /^rate:[a-z-]+:(ip|cred|token):|^rate:[a-z-]+:[\d.:a-f]+$/,
        );
      }
      assert.equal(
        keys.some((k) => k.includes('undefined')),
        false,
      );
    });
  });
}

describe('client IP behind a proxy', () => {
  const enrollFrom = (t: TestIssuer, forwarded: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': forwarded },
      payload: { token: guess(), scanner_id: 'x' },
    });

  it('X-Forwarded-For is ignored unless TRUST_PROXY says so', async () => {
    const t = await testIssuer({ env: { ...LIMITS, RATE_LIMIT_ENROLL_PER_IP: '2' } });
    for (let i = 0; i < 2; i++) assert.equal((await enrollFrom(t, freshIp())).statusCode, 400);
    assertLimited(await enrollFrom(t, freshIp()));
    await t.close();
  });

  it('with TRUST_PROXY, each forwarded client is counted on its own', async () => {
    const t = await testIssuer({ env: { ...LIMITS, RATE_LIMIT_ENROLL_PER_IP: '2', TRUST_PROXY: 'true' } });
    for (let i = 0; i < 5; i++) assert.equal((await enrollFrom(t, freshIp())).statusCode, 400);
    const ip = freshIp();
    for (let i = 0; i < 2; i++) assert.equal((await enrollFrom(t, ip)).statusCode, 400);
    assertLimited(await enrollFrom(t, ip));
    await t.close();
  });
});

describe('failed authentications are counted per client IP', () => {
  it('guessing with ever new API keys is throttled; other clients are not affected', async () => {
    const t = await testIssuer({ env: { ...LIMITS, RATE_LIMIT_AUTH_FAILURES_PER_IP: '3' } });
    const s = await scenario(t.app);
    const status = (key: string, ip: string) =>
      t.app.inject({
        url: `/api/v1/tickets/${s.tid}/status`,
        remoteAddress: ip,
        headers: { authorization: `Bearer ${key}` },
      });
    const guesser = freshIp();
    for (let i = 0; i < 3; i++) assert.equal((await status(`sk_live_${randomUUID()}`, guesser)).statusCode, 401);
    assertLimited(await status(`sk_live_${randomUUID()}`, guesser));
    assert.equal((await status(s.apiKey, freshIp())).statusCode, 200);
    const admin = await t.app.inject({
      url: '/admin/v1/events',
      remoteAddress: guesser,
      headers: { authorization: 'Bearer x' },
    });
    assertLimited(admin);
    await t.close();
  });
});

describe('admin credentials are counted apart', () => {
  it('a flood with a wrong admin token does not limit the real one', async () => {
    const t = await testIssuer({ env: { ...LIMITS, RATE_LIMIT_ADMIN_PER_TOKEN: '2' } });
    const get = (token: string) =>
      t.app.inject({ url: '/admin/v1/events', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 2; i++) assert.equal((await get('wrong-token')).statusCode, 401);
    assertLimited(await get('wrong-token'));
    await adminCall(t.app, 'GET', '/admin/v1/events');
    await t.close();
  });
});
