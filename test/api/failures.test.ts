import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, afterEach, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  adminCall,
  ADMIN_TOKEN,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

const DRIVER_MESSAGE = 'SQLITE_IOERR: disk I/O error in "UPDATE tickets SET checked_in_at = ? WHERE tid = ?"';

/** A fault of the issuer itself (a bug), not of a dependency. */
const BUG_MESSAGE = "Cannot read properties of undefined (reading 'checked_in_at') in UPDATE tickets";

/** How a failing store call fails: like a broken disk (the default), a lost database, or a bug. */
type Fault = 'disk' | 'database' | 'bug';
const faultError = (fault: Fault): Error =>
  fault === 'disk'
    ? Object.assign(new Error(DRIVER_MESSAGE), { code: 'SQLITE_IOERR' })
    : fault === 'database'
      ? Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })
      : new TypeError(BUG_MESSAGE);

/** The store's areas, and the methods of any of them. */
type Area =
  'settings' | 'events' | 'tickets' | 'feed' | 'scanners' | 'checkIns' | 'webhooks' | 'signingKeys' | 'sessions';
type StoreMethod = { [A in Area]: keyof Store[A] }[Area];

/** A store whose named method (of whichever area has it) fails as `fault` says, while `failing` is set. */
function faultyStore(inner: Store): { store: Store; fail: (method: StoreMethod | null, fault?: Fault) => void } {
  let failing: StoreMethod | null = null;
  let kind: Fault = 'disk';
  const failingIn = <T extends object>(area: T): T =>
    new Proxy(area, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== failing || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(target) : value;
        return () => Promise.reject(faultError(kind));
      },
    });
  const areas = new Map<PropertyKey, object>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value === 'function') return value.bind(target);
      if (typeof value !== 'object' || value === null) return value;
      if (!areas.has(property)) areas.set(property, failingIn(value));
      return areas.get(property);
    },
  });
  return {
    store,
    fail: (method, fault = 'disk') => {
      failing = method;
      kind = fault;
    },
  };
}

describe('failures inside the issuer', () => {
  let t: TestIssuer;
  let s: Scenario;
  let fail: (method: StoreMethod | null, fault?: Fault) => void;

  before(async () => {
    const faulty = faultyStore(new SqliteStore(':memory:'));
    fail = faulty.fail;
    t = await testIssuer({ store: faulty.store });
    s = await scenario(t.app);
  });
  afterEach(() => fail(null));
  after(() => t.close());

  it('a fault of the issuer itself answers 500 INTERNAL with a generic message and logs the cause with the request id', async () => {
    fail('checkIn', 'bug');
    const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T12:00:00Z'), {
      'x-request-id': 'req-500-check',
    });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), {
      error: {
        code: 'INTERNAL',
        message: 'internal error; retry with exponential backoff',
        details: { request_id: 'req-500-check' },
      },
    });
    assert.doesNotMatch(res.body, /Cannot read|UPDATE|tickets|\bat /);
    const logged = t.logs.lines.map((line) => JSON.parse(line)).find((l) => l.reqId === 'req-500-check' && l.err);
    assert.ok(logged, 'the cause is logged with the request id');
    assert.equal(logged.level, 50);
    assert.match(logged.err.message, /Cannot read properties/);
  });

  for (const fault of ['disk', 'database'] as const) {
    it(`a ${fault} that fails is an answer: 503 UNAVAILABLE with Retry-After, no driver text, a warning in the log`, async () => {
      fail('checkIn', fault);
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T12:00:00Z'), {
        'x-request-id': `req-503-${fault}`,
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '2');
      assert.deepEqual(res.json(), {
        error: {
          code: 'UNAVAILABLE',
          message: 'the store is unavailable; retry later',
          details: { retry_after_seconds: 2 },
        },
      });
      assert.doesNotMatch(res.body, /SQLITE|UPDATE|administrator|\bat /);
      const logged = t.logs.lines
        .map((line) => JSON.parse(line))
        .find((l) => l.reqId === `req-503-${fault}` && l.store_error);
      assert.ok(logged, 'the cause is logged with the request id');
      assert.equal(logged.level, 40);
    });
  }

  it('a refusal is still answered when the scan log cannot record it; the failure is logged', async () => {
    fail('logRefusedAttempt');
    const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T12:00:00Z', { scanner_id: 'other' }), {
      'x-request-id': 'req-refused-unlogged',
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
    const logged = t.logs.lines
      .map((line) => JSON.parse(line))
      .find((l) => l.reqId === 'req-refused-unlogged' && l.err);
    assert.ok(logged, 'the scan-log failure is in the server log');
  });

  it('every route answers 503 UNAVAILABLE in the envelope, with Retry-After, when its store call fails', async () => {
    const cases: [
      StoreMethod,
      () => Promise<{ statusCode: number; body: string; json(): { error: { code: string } } }>,
    ][] = [
      [
        'redeemEnrollmentToken',
        () =>
          t.app.inject({
            method: 'POST',
            url: '/api/v1/scanners/enroll',
            payload: { token: `st_${'A'.repeat(43)}`, scanner_id: 'x' },
          }),
      ],
      [
        'findApiKey',
        () =>
          t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } }),
      ],
      [
        'getTicket',
        () =>
          t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } }),
      ],
      ['listSigningKeys', () => t.app.inject({ url: '/.well-known/ticket-issuer.json' })],
      [
        'createTickets',
        () =>
          t.app.inject({
            method: 'POST',
            url: `/admin/v1/events/${s.eid}/tickets`,
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            payload: { holder_name: 'A', ticket_type: 'B' },
          }),
      ],
    ];
    for (const [method, call] of cases) {
      fail(method);
      const res = await call();
      assert.equal(res.statusCode, 503, method);
      assert.equal(res.json().error.code, 'UNAVAILABLE');
      assert.doesNotMatch(res.body, /SQLITE|UPDATE/);
    }
    fail(null);
    const event = await adminCall<{ counters: { issued: number } }>(t.app, 'GET', `/admin/v1/events/${s.eid}`);
    assert.equal(event.counters.issued, 1, 'the failed issue left nothing behind');
  });
});

describe('credential checks take one constant-time comparison whether or not the credential exists', () => {
  let t: TestIssuer;
  let s: Scenario;
  let comparisons = 0;
  const original = crypto.timingSafeEqual;

  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
    crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons++;
      return original(a, b);
    }) as typeof crypto.timingSafeEqual;
    syncBuiltinESMExports();
  });
  after(async () => {
    crypto.timingSafeEqual = original;
    syncBuiltinESMExports();
    await t.close();
  });

  const count = async (call: () => Promise<{ statusCode: number }>, status: number) => {
    comparisons = 0;
    assert.equal((await call()).statusCode, status);
    return comparisons;
  };

  it('API keys: unknown, revoked and valid keys each take exactly one comparison', async () => {
    const status = (key: string) => () =>
      t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${key}` } });
    const other = await scenario(t.app);
    await adminCall(t.app, 'POST', `/admin/v1/api-keys/${other.apiKeyId}/revoke`);
    assert.equal(await count(status(`sk_live_${'B'.repeat(43)}`), 401), 1);
    assert.equal(await count(status(other.apiKey), 401), 1);
    assert.equal(await count(status(s.apiKey), 200), 1);
  });

  it('enrolment tokens: unknown, used and valid tokens each take exactly one comparison', async () => {
    const enroll = (token: string) => () =>
      t.app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token, scanner_id: 'x' } });
    const { token } = await adminCall<{ token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    assert.equal(await count(enroll(`st_${'C'.repeat(43)}`), 400), 1);
    assert.equal(await count(enroll(token), 200), 1);
    assert.equal(await count(enroll(token), 400), 1);
  });

  it('the admin token: a wrong one and the right one each take exactly one comparison', async () => {
    const events = (token: string) => () =>
      t.app.inject({ url: '/admin/v1/events', headers: { authorization: `Bearer ${token}` } });
    assert.equal(await count(events('wrong-admin-token'), 401), 1);
    assert.equal(await count(events(ADMIN_TOKEN), 200), 1);
  });
});
