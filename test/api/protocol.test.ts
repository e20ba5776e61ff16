import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  adminCall,
  scenario,
  SPEC_CLIENT_ERROR_CODES,
  type Scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

const CODES = [...SPEC_CLIENT_ERROR_CODES, 'INTERNAL'];

function assertEnvelope(res: { statusCode: number; json(): unknown; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json() as { error: { code: string; message: string; details: unknown } };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.ok(CODES.includes(body.error.code), body.error.code);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.details, 'object');
  assert.doesNotMatch(res.body, /\bat .*\.(ts|js):\d+/, 'no stack trace');
}

describe('versioning and the error envelope', () => {
  let t: TestIssuer;
  let s: Scenario;

  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
  });
  after(() => t.close());

  it('a request under /api/vN/ with N other than 1 gets 400 PROTOCOL_VERSION_UNSUPPORTED, not 404', async () => {
    for (const url of ['/api/v2/tickets/check-in', '/api/v0/scanners/enroll', '/api/v2/anything', '/api/vX/x']) {
      assertEnvelope(await t.app.inject({ method: 'POST', url, payload: {} }), 400, 'PROTOCOL_VERSION_UNSUPPORTED');
    }
    const res = await t.app.inject({ url: '/api/v3/tickets/x/status' });
    assert.deepEqual(res.json().error.details, { supported: ['1'] });
  });

  it('an unsupported Ticket-Protocol-Version header gets 400 PROTOCOL_VERSION_UNSUPPORTED', async () => {
    const res = await t.app.inject({
      url: `/api/v1/tickets/${s.tid}/status`,
      headers: { authorization: `Bearer ${s.apiKey}`, 'ticket-protocol-version': '2' },
    });
    assertEnvelope(res, 400, 'PROTOCOL_VERSION_UNSUPPORTED');
    const ok = await t.app.inject({
      url: `/api/v1/tickets/${s.tid}/status`,
      headers: { authorization: `Bearer ${s.apiKey}`, 'ticket-protocol-version': '1' },
    });
    assert.equal(ok.statusCode, 200);
  });

  it('an unknown route answers 404 NOT_FOUND in the envelope', async () => {
    assertEnvelope(await t.app.inject({ url: '/nothing/here' }), 404, 'NOT_FOUND');
    assertEnvelope(await t.app.inject({ url: '/api/v1/tickets' }), 404, 'NOT_FOUND');
  });

  it('a known path asked with another method answers 405 in the envelope, with Allow', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/api/v1/tickets/check-in', 'POST'],
      ['GET', '/api/v1/scanners/enroll', 'POST'],
      ['POST', `/api/v1/tickets/${s.tid}/status?x=1`, 'GET, HEAD'],
      ['DELETE', '/admin/v1/events', 'GET, HEAD, POST'],
      ['PUT', '/admin/v1/signing-keys/some-kid', 'DELETE'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      assertEnvelope(res, 405, 'INVALID_REQUEST');
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
      assert.deepEqual(res.json().error.details.allow, allow.split(', '));
    }
  });

  /** Sends a raw body to the enrolment route. */
  const rawEnroll = (contentType: string, payload: string) =>
    t.app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', headers: { 'content-type': contentType }, payload });

  it('malformed JSON answers 400 INVALID_REQUEST', async () => {
    const res = await rawEnroll('application/json', '{"token": ');
    assertEnvelope(res, 400, 'INVALID_REQUEST');
  });

  it('an empty JSON body answers 400 INVALID_REQUEST', async () => {
    const res = await rawEnroll('application/json', '');
    assertEnvelope(res, 400, 'INVALID_REQUEST');
  });

  it('a wrong content type answers 415 INVALID_REQUEST', async () => {
    const res = await rawEnroll('text/plain', 'token=st_x');
    assertEnvelope(res, 415, 'INVALID_REQUEST');
  });

  it('an oversized body answers 413 INVALID_REQUEST', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ tid: 'x'.repeat(64 * 1024) }),
    });
    assertEnvelope(res, 413, 'INVALID_REQUEST');
  });

  it('a body of the wrong shape answers 400 INVALID_REQUEST with field-level details', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: { tid: 5, eid: s.eid, scanned_at: '2026-06-01T12:00:00Z', scanner_id: s.scannerId },
    });
    assertEnvelope(res, 400, 'INVALID_REQUEST');
    assert.deepEqual(Object.keys(res.json().error.details), ['fields']);
    assert.equal(res.json().error.details.fields[0].field, 'tid');
    assert.equal(typeof res.json().error.details.fields[0].problem, 'string');
  });

  it('a JSON array or a prototype-pollution key is refused with 400', async () => {
    const array = await rawEnroll('application/json', '[]');
    assertEnvelope(array, 400, 'INVALID_REQUEST');
    const proto = await rawEnroll(
      'application/json',
      '{"token":"st_x","scanner_id":"a","__proto__":{"polluted":true}}',
    );
    assertEnvelope(proto, 400, 'INVALID_REQUEST');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('every answer carries X-Request-Id, a caller’s sane id is echoed, and no-store caching', async () => {
    const res = await t.app.inject({ url: '/nothing', headers: { 'x-request-id': 'trace-123' } });
    assert.equal(res.headers['x-request-id'], 'trace-123');
    const generated = await t.app.inject({
      url: `/api/v1/tickets/${s.tid}/status`,
      headers: { 'x-request-id': 'bad id\n' },
    });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.equal(generated.headers['cache-control'], 'no-store');
  });

  it('security headers suitable for a JSON API are set', async () => {
    const res = await t.app.inject({ url: '/.well-known/ticket-issuer.json' });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'");
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
  });

  it('the admin API answers 401 UNAUTHORIZED without the admin token, in the envelope', async () => {
    assertEnvelope(await t.app.inject({ url: '/admin/v1/events' }), 401, 'UNAUTHORIZED');
    const wrong = await t.app.inject({ url: '/admin/v1/events', headers: { authorization: `Bearer ${s.apiKey}` } });
    assertEnvelope(wrong, 401, 'UNAUTHORIZED');
  });

  it('GET /openapi.json documents every route from the route schemas', async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.match(doc.openapi, /^3\./);
    for (const path of [
      '/api/v1/scanners/enroll',
      '/api/v1/tickets/check-in',
      '/api/v1/tickets/{tid}/status',
      '/.well-known/ticket-issuer.json',
      '/admin/v1/events',
      '/admin/v1/events/{eid}/tickets',
      '/admin/v1/signing-keys/rotate',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    const checkIn = doc.paths['/api/v1/tickets/check-in'].post;
    assert.equal(checkIn.requestBody.content['application/json'].schema.$ref, '#/components/schemas/CheckInRequest');
    assert.ok(doc.components.schemas.CheckInRequest.properties.idempotency_key);
    assert.ok(checkIn.responses['409']);
    await adminCall(t.app, 'GET', '/admin/v1/events');
  });
});
