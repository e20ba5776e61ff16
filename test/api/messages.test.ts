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
const INSTANT_PROBLEM = 'must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z';
/** What a person should never have to read: ajv's phrasing, a regular expression, a schema keyword. */
const UNREADABLE = /must match pattern|must NOT|must have required property|anyOf|\^\[|\\x|\\u|\]\+\$|\]\*\$/;

type Problem = { field: string; problem: string };
type Answer = { statusCode: number; json(): unknown };

function invalid(res: Answer): { message: string; fields: Problem[] } {
  assert.equal(res.statusCode, 400);
  const { error } = res.json() as { error: { code: string; message: string; details: { fields: Problem[] } } };
  assert.equal(error.code, 'INVALID_REQUEST');
  return { message: error.message, fields: error.details.fields };
}

describe('4xx messages read as a person would want them', () => {
  let t: TestIssuer;
  let s: Scenario;
  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
  });
  after(() => t.close());

  const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: admin, payload });

  it('an event_date that is not a timestamp is described with an example, never a regular expression', async () => {
    for (const eventDate of ['2026-05-01 18:30', 'next friday', '2026-05-01T18:30:00+02:00', '']) {
      const { message, fields } = invalid(await post('/admin/v1/events', { name: 'Gala', event_date: eventDate }));
      assert.deepEqual(fields, [{ field: 'event_date', problem: INSTANT_PROBLEM }], eventDate);
      assert.match(
        message,
        /^(invalid request: )?event_date must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z$/,
      );
    }
  });

  it('every instant field says the same, "or null" where null is allowed', async () => {
    const endsAt = invalid(await post('/admin/v1/events', { name: 'Gala', event_date: T0, ends_at: 5 }));
    assert.deepEqual(endsAt.fields, [{ field: 'ends_at', problem: `${INSTANT_PROBLEM}, or null` }]);
    const token = invalid(await post(`/admin/v1/events/${s.eid}/enrollment-tokens`, { expires_at: 'soon!' }));
    assert.deepEqual(token.fields, [{ field: 'expires_at', problem: INSTANT_PROBLEM }]);
    const scan = invalid(await postCheckIn(t.app, s.apiKey, checkInBody(s, '1 May 2026 18:30')));
    assert.deepEqual(scan.fields, [{ field: 'scanned_at', problem: INSTANT_PROBLEM }]);
  });

  it('a nullable list with a bad item says what the list must be, not "must be null, or null"', async () => {
    const person = { email: 'list@example.test', name: 'List', role: 'viewer' };
    for (const events of [[1], 'every']) {
      const { message, fields } = invalid(await post('/admin/v1/users', { ...person, events }));
      assert.deepEqual(
        fields.find((f) => f.field === 'events'),
        { field: 'events', problem: 'must be null or a list of event ids' },
        JSON.stringify(events),
      );
      assert.doesNotMatch(message, /null, or null/);
    }
    const gate = await t.app.inject({
      method: 'PUT',
      url: `/admin/v1/events/${s.eid}/gates/north`,
      headers: admin,
      payload: { name: 'North', admits: [5] },
    });
    const admits = invalid(gate).fields.find((f) => f.field === 'admits');
    assert.equal(admits?.problem, 'must be null or an array');
  });

  it('an empty id in the path says which one is required there (GET /admin/v1/events/)', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/admin/v1/events/', 'eid'],
      ['POST', '/admin/v1/tickets//revoke', 'tid'],
      ['GET', '/api/v1/tickets//status', 'tid'],
    ];
    for (const [method, url, field] of cases) {
      const headers = url.startsWith('/api') ? { authorization: `Bearer ${s.apiKey}` } : admin;
      const res = await t.app.inject({ method: method as 'GET', url, headers });
      const { message, fields } = invalid(res);
      assert.equal(message, `invalid request: ${field} is required in the path`, url);
      assert.deepEqual(fields, [{ field, problem: 'is required in the path' }]);
    }
  });

  it('missing fields "are required", unknown ones are named, wrong types say what is expected', async () => {
    const bulk = invalid(await post(`/admin/v1/events/${s.eid}/tickets`, { tickets: [{ holder_name: 'A' }] }));
    assert.equal(bulk.message, 'invalid request: tickets.0.ticket_type is required');
    const limit = invalid(await t.app.inject({ url: '/admin/v1/events?limit=ten', headers: admin }));
    assert.equal(limit.message, 'invalid request: limit must be a whole number from 1 to 1000');
    const flag = invalid(
      await postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { signature_valid: 'no', idempotency_key: randomUUID() })),
    );
    assert.equal(flag.message, 'invalid request: signature_valid must be true or false');
    const name = invalid(await post('/admin/v1/events', { name: 'Gala\u0007', event_date: T0 }));
    assert.equal(name.message, 'invalid request: name must be text of 1 to 200 characters, without control characters');
  });

  it('no 400 of a sweep of bad requests prints ajv phrasing or a pattern', async () => {
    const requests = [
      post('/admin/v1/events', {}),
      post('/admin/v1/events', { name: '', event_date: 'x y' }),
      post('/admin/v1/events', { name: 7, event_date: T0 }),
      post(`/admin/v1/events/${s.eid}/tickets`, { tickets: [] }),
      post(`/admin/v1/events/${s.eid}/tickets`, { holder_name: 'x'.repeat(201), ticket_type: 'GA' }),
      post(`/admin/v1/events/${s.eid}/enrollment-tokens`, { gate_id: 'gate a' }),
      post(`/admin/v1/tickets/${s.tid}/revoke`, { reason: 5 }),
      t.app.inject({ url: `/admin/v1/events?cursor=${encodeURIComponent('a b')}`, headers: admin }),
      t.app.inject({
        url: `/api/v1/events/${s.eid}/changes?limit=-1`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      }),
      postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { tid: 'a b' })),
      postCheckIn(t.app, s.apiKey, { tid: s.tid }),
      postCheckIn(t.app, s.apiKey, checkInBody(s, T0, { idempotency_key: 'k'.repeat(65) })),
      t.app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token: 'st_x', scanner_id: 'a b' } }),
    ];
    for (const res of await Promise.all(requests)) {
      const { message, fields } = invalid(res);
      assert.doesNotMatch(message, UNREADABLE, message);
      for (const f of fields) assert.doesNotMatch(f.problem, UNREADABLE, `${f.field}: ${f.problem}`);
    }
  });

  it('revoking an enrolment token already used answers 409 CONFLICT naming the scanner it enrolled', async () => {
    const { token, token_id } = await adminCall<{ token: string; token_id: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    const scannerId = randomUUID();
    const enrolled = await t.app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token, scanner_id: scannerId },
    });
    const apiKeyId = enrolled.json().api_key_id as string;
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/enrollment-tokens/${token_id}/revoke`,
      headers: admin,
    });
    assert.equal(res.statusCode, 409);
    const { error } = res.json();
    assert.equal(error.code, 'CONFLICT');
    assert.deepEqual(error.details, { token_id, scanner_id: scannerId, api_key_id: apiKeyId });
    assert.match(
      error.message,
      new RegExp(`used by scanner ${scannerId} \\(API key ${apiKeyId}\\); revoke that API key`),
    );
    const scanners = await adminCall<{ scanners: { api_key_id: string; revoked_at: string | null }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${s.eid}/scanners`,
    );
    assert.equal(scanners.scanners.find((k) => k.api_key_id === apiKeyId)?.revoked_at, null, 'nothing was revoked');
  });
});
