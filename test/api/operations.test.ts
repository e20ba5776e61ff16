import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  ADMIN_TOKEN,
  checkInBody,
  NO_LIMITS,
  postCheckIn,
  scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { itUnless, redisForTests } from '../helpers/services.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdefgh';

/** Sends raw bytes to a listening app and returns what comes back before the server closes. */
async function raw(port: number, bytes: string, waitMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(waitMs, () => {
      socket.destroy();
      resolve(answer);
    });
    socket.write(bytes);
  });
}

const envelopeOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('operations: /healthz, /readyz, /metrics', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer();
  });
  after(() => t.close());
  const metrics = async (token = ADMIN_TOKEN) =>
    (await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
  const sample = (text: string, name: string) =>
    Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

  it('GET /healthz answers 200 {"status":"ok"} without authentication', async () => {
    const res = await t.app.inject({ url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('GET /readyz answers ready with the store checked and Redis not configured', async () => {
    const res = await t.app.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready', checks: { store: 'ok', redis: 'not_configured' } });
  });

  it('GET /readyz answers 503 UNAVAILABLE naming the store when it fails', async () => {
    const store = new SqliteStore(':memory:');
    const broken = await testIssuer({ store });
    store.ping = async () => {
      throw new Error('disk gone');
    };
    const res = await broken.app.inject({ url: '/readyz' });
    await broken.close();
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'UNAVAILABLE');
    assert.deepEqual(res.json().error.details.checks, { store: 'error', redis: 'not_configured' });
  });

  it('GET /readyz: Redis unreachable alone keeps the instance ready (degraded); with the store down too, 503', async () => {
    const deadRedis = () => {
      const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });
      dead.on('error', () => undefined);
      return dead;
    };
    const degraded = await testIssuer({ redis: deadRedis() });
    const ready = await degraded.app.inject({ url: '/readyz' });
    await degraded.close();
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', checks: { store: 'ok', redis: 'degraded' } });

    const store = new SqliteStore(':memory:');
    const broken = await testIssuer({ store, redis: deadRedis() });
    store.ping = async () => {
      throw new Error('disk gone');
    };
    const res = await broken.app.inject({ url: '/readyz' });
    await broken.close();
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error.code, 'UNAVAILABLE');
    assert.ok(res.headers['retry-after'], 'a load balancer or client is told when to ask again');
    assert.deepEqual(res.json().error.details.checks, { store: 'error', redis: 'degraded' });
  });

  it('GET /metrics needs the admin token when METRICS_TOKEN is unset: 401 envelope otherwise', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }]) {
      const res = await t.app.inject({ url: '/metrics', headers });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
    const ok = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(ok.statusCode, 200);
    assert.match(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(ok.body, /^process_cpu_user_seconds_total \d/m, "prom-client's process metrics");
  });

  it('with METRICS_TOKEN set, that token is the one accepted', async () => {
    const m = await testIssuer({ env: { METRICS_TOKEN } });
    const get = (token: string) => m.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await get(METRICS_TOKEN)).statusCode, 200);
    assert.equal((await get(ADMIN_TOKEN)).statusCode, 401);
    await m.close();
  });

  it('counts check-ins by outcome and replays apart, once each', async () => {
    const before = await metrics();
    const s = await scenario(t.app);
    const body = checkInBody(s, T0);
    await postCheckIn(t.app, s.apiKey, body);
    await postCheckIn(t.app, s.apiKey, body);
    await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
    await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { signature_valid: false }));
    const after = await metrics();
    const delta = (name: string) => sample(after, name) - (sample(before, name) || 0);
    assert.equal(delta('issuer_check_ins_total{outcome="valid"}'), 1);
    assert.equal(delta('issuer_check_ins_total{outcome="already_used"}'), 1);
    assert.equal(delta('issuer_check_ins_total{outcome="invalid_signature"}'), 1);
    assert.equal(delta('issuer_idempotent_replays_total'), 1);
  });

  it('times requests by route pattern, never by raw URL', async () => {
    const s = await scenario(t.app);
    await t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } });
    const text = await metrics();
    assert.match(
      text,
      /^issuer_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/tickets\/:tid\/status",status_code="200"\} \d+/m,
    );
    assert.equal(text.includes(s.tid), false);
  });

  it('counts rate-limited requests by limit', async () => {
    const limited = await testIssuer({ env: { ...NO_LIMITS, RATE_LIMIT_NOT_FOUND_PER_IP: '1' } });
    for (let i = 0; i < 3; i++) await limited.app.inject({ url: '/nope' });
    const text = (await limited.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
      .body;
    await limited.close();
    assert.equal(sample(text, 'issuer_rate_limited_total{endpoint="not-found"}'), 2);
  });
});

describe('readiness with Redis', async () => {
  const redis = await redisForTests();
  const it = itUnless(redis.available ? undefined : redis.reason);

  it('redis is ok while it answers, and degraded (200: the instance still serves) when it does not', async () => {
    if (!redis.available) return;
    const up = await testIssuer({ redis: await redis.client() });
    assert.deepEqual((await up.app.inject({ url: '/readyz' })).json().checks, { store: 'ok', redis: 'ok' });
    await up.close();
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    const down = await testIssuer({ redis: dead });
    const res = await down.app.inject({ url: '/readyz' });
    await down.close();
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready', checks: { store: 'ok', redis: 'degraded' } });
  });
});

describe('secrets in URLs and headers never reach the logs', () => {
  it('API keys, enrolment tokens and the admin token are masked in paths, queries and error messages', async () => {
    const t = await testIssuer();
    const s = await scenario(t.app);
    const enrolment = `st_${randomUUID().replace(/-/g, '')}AAAAAAAAAAA`;
    await t.app.inject({ url: `/api/v1/tickets/${s.apiKey}/status?access_token=${s.apiKey}` });
    await t.app.inject({ url: `/x/${enrolment}?admin=${encodeURIComponent(ADMIN_TOKEN)}` });
    await t.app.inject({ url: `/admin/v1/events/%E0%A4%A/${s.apiKey}` });
    await t.app.inject({ url: '/healthz', headers: { 'x-api-key': s.apiKey, 'x-admin': ADMIN_TOKEN } });
    await t.close();
    assert.ok(t.logs.text.includes('[redacted]'));
    for (const secret of [s.apiKey, enrolment, ADMIN_TOKEN, encodeURIComponent(ADMIN_TOKEN)]) {
      assert.equal(t.logs.text.includes(secret), false, `a log line carries ${secret.slice(0, 8)}…`);
    }
  });

  it("a query's code masked in free text leaves the log line JSON (a quote after it stays escaped)", async () => {
    const t = await testIssuer();
    const s = await scenario(t.app);
    await postCheckIn(t.app, s.apiKey, checkInBody(s, T0));
    const scans = await t.app.inject({
      url: `/admin/v1/events/${s.eid}/scans`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const scanId = (scans.json() as { scans: { scan_id: string }[] }).scans[0]!.scan_id;
    const annulled = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/events/${s.eid}/scans/${scanId}/annul`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { reason: 'see ?code=abc"d' },
    });
    assert.equal(annulled.statusCode, 200, annulled.body);
    await t.close();
    const line = t.logs.lines.find((l) => l.includes('entry annulled by the organizer'))!;
    assert.equal((JSON.parse(line) as { reason: string }).reason, 'see ?code=[redacted]"d');
    for (const each of t.logs.lines) assert.doesNotThrow(() => JSON.parse(each), each);
  });
});

describe("errors of Node's HTTP parser and timeouts answer in the envelope", () => {
  let t: TestIssuer;
  let port: number;
  before(async () => {
    t = await testIssuer({ env: { REQUEST_TIMEOUT_S: '1' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  it('headers too large: 431 with the envelope', async () => {
    const answer = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 431 /);
    assert.equal(envelopeOf(answer).error.code, 'INVALID_REQUEST');
  });

  it('a malformed request line or header: 400 with the envelope', async () => {
    for (const request of ['GARBAGE\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']) {
      const answer = await raw(port, request);
      assert.match(answer, /^HTTP\/1\.1 400 /, request);
      assert.equal(envelopeOf(answer).error.code, 'INVALID_REQUEST');
    }
  });

  it('request smuggling shapes (Content-Length with Transfer-Encoding): 400 with the envelope', async () => {
    const answer = await raw(
      port,
      'POST /api/v1/scanners/enroll HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.equal(envelopeOf(answer).error.code, 'INVALID_REQUEST');
  });

  it('a half-sent body is dropped after REQUEST_TIMEOUT_S with 408 in the envelope', async () => {
    const started = Date.now();
    const answer = await raw(
      port,
      'POST /api/v1/scanners/enroll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tok',
      10_000,
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.equal(envelopeOf(answer).error.code, 'INVALID_REQUEST');
    assert.ok(Date.now() - started < 5_000, 'dropped within a few seconds, not minutes');
  });
});
