import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  postCheckIn,
  type Scenario,
  scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const LONE = '\uD800';

/** The fields an INVALID_REQUEST answer names. */
function refusedFields(res: { statusCode: number; json(): unknown }): string[] {
  assert.equal(res.statusCode, 400);
  const body = res.json() as { error: { code: string; details: { fields: { field: string }[] } } };
  assert.equal(body.error.code, 'INVALID_REQUEST');
  return body.error.details.fields.map((f) => f.field);
}

describe('strings with a lone UTF-16 surrogate are refused with 400 INVALID_REQUEST naming the field', () => {
  let t: TestIssuer;
  let s: Scenario;
  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
  });
  after(() => t.close());

  it('check-in: a lone surrogate in gate_id is refused and the ticket stays unused', async () => {
    const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { gate_id: `north${LONE}` }));
    assert.deepEqual(refusedFields(res), ['gate_id']);
    assert.match(res.json().error.message, /gate_id contains a lone UTF-16 surrogate/);
    const status = await t.app.inject({
      url: `/api/v1/tickets/${s.tid}/status`,
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    assert.equal(status.json().status, 'valid');
  });

  it('check-in: even in a field the scanner API otherwise ignores, or in a key', async () => {
    const unknownField = await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { future_field: `\uDFFF` }));
    assert.deepEqual(refusedFields(unknownField), ['future_field']);
    const key = await postCheckIn(t.app, s.apiKey, { ...checkInBody(s, T0), [`a${LONE}`]: 1 });
    assert.deepEqual(refusedFields(key), ['a\uFFFD']);
  });

  it('enrolment: a lone surrogate in scanner_name is refused and the token is not spent', async () => {
    const { token } = await adminCall<{ token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    const payload = { token, scanner_id: randomUUID(), scanner_name: `Gate ${LONE}A` };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload });
    assert.deepEqual(refusedFields(res), ['scanner_name']);
    const retry = await t.app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { ...payload, scanner_name: 'Gate A' },
    });
    assert.equal(retry.statusCode, 200);
  });

  it('admin: holder_name of a single ticket, and of the second ticket of a bulk request', async () => {
    const url = `/admin/v1/events/${s.eid}/tickets`;
    const single = await t.app.inject({
      method: 'POST',
      url,
      headers: admin,
      payload: { holder_name: `Ada ${LONE}`, ticket_type: 'GA' },
    });
    assert.deepEqual(refusedFields(single), ['holder_name']);
    const bulk = await t.app.inject({
      method: 'POST',
      url,
      headers: admin,
      payload: {
        tickets: [
          { holder_name: 'A', ticket_type: 'GA' },
          { holder_name: `B${LONE}`, ticket_type: 'GA' },
        ],
      },
    });
    assert.deepEqual(refusedFields(bulk), ['tickets.1.holder_name']);
    const event = await adminCall<{ counters: { issued: number } }>(t.app, 'GET', `/admin/v1/events/${s.eid}`);
    assert.equal(event.counters.issued, 1, 'nothing was issued');
  });

  it('well-formed text, surrogate pairs (emoji) included, is accepted', async () => {
    const ticket = await adminCall<{ holder_name: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      holder_name: 'Zoë 😀 𒐫',
      ticket_type: 'GA',
    });
    assert.equal(ticket.holder_name, 'Zoë 😀 𒐫');
  });
});

describe('admin request bodies refuse unknown fields (400 naming the field); the scanner API ignores them', () => {
  let t: TestIssuer;
  let s: Scenario;
  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
  });
  after(() => t.close());

  const post = (url: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: admin, ...(payload ? { payload } : {}) });

  it('POST /admin/v1/events: expiresAt is refused, not dropped, and no event is created', async () => {
    const before = await adminCall<{ events: unknown[] }>(t.app, 'GET', '/admin/v1/events');
    const res = await post('/admin/v1/events', { name: 'Gala', event_date: '2026-07-01T18:00:00Z', endsAt: T0 });
    assert.deepEqual(refusedFields(res), ['endsAt']);
    assert.equal(
      res.json().error.message,
      'invalid request: endsAt is not a field of this request (did you mean ends_at?)',
    );
    const after = await adminCall<{ events: unknown[] }>(t.app, 'GET', '/admin/v1/events');
    assert.equal(after.events.length, before.events.length);
  });

  it('every admin body: events, tickets (single and bulk), revoke, reissue, enrolment tokens, API keys, rotate', async () => {
    const { token_id } = await adminCall<{ token_id: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    const cases: [string, object, string][] = [
      [`/admin/v1/events/${s.eid}/tickets`, { holder_name: 'A', ticket_type: 'GA', seat: '12B' }, 'seat'],
      [
        `/admin/v1/events/${s.eid}/tickets`,
        { tickets: [{ holder_name: 'A', ticket_type: 'GA', seat: 1 }] },
        'tickets.0.seat',
      ],
      [`/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund', note: 'x' }, 'note'],
      [`/admin/v1/tickets/${s.tid}/reissue`, { force: true }, 'force'],
      [`/admin/v1/events/${s.eid}/enrollment-tokens`, { expiresAt: T0 }, 'expiresAt'],
      [`/admin/v1/enrollment-tokens/${token_id}/revoke`, { reason: 'lost' }, 'reason'],
      [`/admin/v1/api-keys/${s.apiKeyId}/revoke`, { reason: 'lost' }, 'reason'],
      ['/admin/v1/signing-keys/rotate', { alg: 'ES256' }, 'alg'],
    ];
    for (const [url, payload, field] of cases) {
      const res = await post(url, payload);
      assert.deepEqual(refusedFields(res), [field], url);
      assert.match(res.json().error.details.fields[0].problem, /^is not a field of this request/);
    }
    const ticket = await adminCall<{ revoked_at: string | null }>(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
    assert.equal(ticket.revoked_at, null, 'the refused revoke changed nothing');
    const keys = await adminCall<{ keys: unknown[] }>(t.app, 'GET', '/admin/v1/signing-keys');
    assert.equal(keys.keys.length, 1, 'the refused rotation changed nothing');
  });

  it('bodies without fields may be {} or absent: reissue, revoke, rotate', async () => {
    assert.equal((await post(`/admin/v1/tickets/${s.tid}/reissue`, {})).statusCode, 200);
    assert.equal((await post(`/admin/v1/tickets/${s.tid}/reissue`)).statusCode, 200);
    assert.equal((await post('/admin/v1/signing-keys/rotate')).statusCode, 201);
    assert.equal((await post(`/admin/v1/api-keys/${s.apiKeyId}/revoke`, {})).statusCode, 200);
  });

  it('the scanner API ignores unknown fields (newer scanners): enrolment and check-in succeed', async () => {
    const fresh = await scenario(t.app);
    const res = await postCheckIn(t.app, fresh.apiKey, checkInBody(fresh, T0, { seat_row: 'F', app_version: 7 }));
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'valid');
    const { token } = await adminCall<{ token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${fresh.eid}/enrollment-tokens`,
      {},
    );
    const enrolled = await t.app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token, scanner_id: randomUUID(), device_model: 'Pixel 11' },
    });
    assert.equal(enrolled.statusCode, 200);
  });
});
