import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { adminCall, BASE_URL, testIssuer, type TestIssuer } from '../helpers/app.ts';

describe('POST /api/v1/scanners/enroll', () => {
  let t: TestIssuer;
  let eid: string;

  before(async () => {
    t = await testIssuer();
    eid = (
      await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
        name: 'Jazz Night',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
  });
  after(() => t.close());

  const newToken = (body: Record<string, unknown> = {}) =>
    adminCall<{ token: string; token_id: string }>(t.app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, body);
  const enroll = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload, headers });

  it('exchanges a token for an API key, its id, the scope and the issuer', async () => {
    const { token } = await newToken({ gate_id: 'north' });
    const res = await enroll({
      token,
      scanner_id: randomUUID(),
      scanner_name: 'Gate A',
      scanner_platform: 'Android 16',
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.match(body.api_key, /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.match(body.api_key_id, /^sck_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.deepEqual(body.scope, {
      eid,
      event_name: 'Jazz Night',
      event_date: '2026-06-02T18:00:00Z',
      gate_id: 'north',
      expires_at: '2026-06-03T18:00:00Z',
      allow_search: false,
    });
    assert.deepEqual(body.issuer, { name: 'Ticket Issuer', iss: BASE_URL });
  });

  it('a key_expires_at on the token sets scope.expires_at', async () => {
    const { token } = await newToken({ key_expires_at: '2026-06-05T00:00:00Z' });
    const res = await enroll({ token, scanner_id: randomUUID() });
    assert.equal(res.json().scope.expires_at, '2026-06-05T00:00:00Z');
    assert.equal(res.json().scope.gate_id, null);
  });

  it('rule 1: a second use of the same token returns 400 INVALID_TOKEN', async () => {
    const { token } = await newToken();
    assert.equal((await enroll({ token, scanner_id: 'a' })).statusCode, 200);
    const res = await enroll({ token, scanner_id: 'a' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'INVALID_TOKEN');
  });

  it('rule 2: a malformed token returns 400 INVALID_TOKEN', async () => {
    for (const token of [
      '',
      'st_short',
      'sk_live_' + 'a'.repeat(43),
      'st_' + '!'.repeat(43),
      'st_' + 'x'.repeat(600),
      42,
      null,
      ['st_x'],
      { v: 1 },
    ]) {
      const res = await enroll({ token, scanner_id: 'a' });
      assert.equal(res.statusCode, 400, JSON.stringify(token));
      assert.deepEqual(Object.keys(res.json().error), ['code', 'message', 'details']);
      assert.equal(res.json().error.code, 'INVALID_TOKEN');
    }
  });

  it('rule 2: a well-formed token the issuer never made returns 400 INVALID_TOKEN', async () => {
    const res = await enroll({ token: 'st_' + 'A'.repeat(43), scanner_id: 'a' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'INVALID_TOKEN');
  });

  it('rule 2: an expired token returns 400 INVALID_TOKEN', async () => {
    const { token } = await newToken({ expires_at: '2026-06-01T12:30:00Z' });
    t.clock.advance(31 * 60 * 1000);
    try {
      const res = await enroll({ token, scanner_id: 'a' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.code, 'INVALID_TOKEN');
    } finally {
      t.clock.advance(-31 * 60 * 1000);
    }
  });

  it('rule 3: a token revoked before use returns 403 TOKEN_REVOKED', async () => {
    const { token, token_id } = await newToken();
    const revoked = await adminCall(t.app, 'POST', `/admin/v1/enrollment-tokens/${token_id}/revoke`);
    assert.equal(typeof revoked.revoked_at, 'string');
    const res = await enroll({ token, scanner_id: 'a' });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'TOKEN_REVOKED');
  });

  it('rule 4: an unsupported protocol version returns 400 PROTOCOL_VERSION_UNSUPPORTED', async () => {
    const { token } = await newToken();
    const inBody = await enroll({ token, scanner_id: 'a', protocol_version: '2' });
    assert.equal(inBody.statusCode, 400);
    assert.equal(inBody.json().error.code, 'PROTOCOL_VERSION_UNSUPPORTED');
    const inHeader = await enroll({ token, scanner_id: 'a' }, { 'ticket-protocol-version': '7' });
    assert.equal(inHeader.json().error.code, 'PROTOCOL_VERSION_UNSUPPORTED');
    const supported = await enroll(
      { token, scanner_id: 'a', protocol_version: '1' },
      { 'ticket-protocol-version': '1' },
    );
    assert.equal(supported.statusCode, 200, 'the token was not spent by the refused attempts');
  });

  it('missing required fields return 400 INVALID_REQUEST naming the field', async () => {
    const res = await enroll({ token: 'st_x' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'INVALID_REQUEST');
    assert.deepEqual(res.json().error.details.fields[0].field, 'scanner_id');
  });

  it('single use holds under concurrency: 20 simultaneous enrolments, exactly one API key', async () => {
    const { token } = await newToken();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => enroll({ token, scanner_id: `dev-${i}` })));
    assert.equal(answers.filter((r) => r.statusCode === 200).length, 1);
    assert.equal(answers.filter((r) => r.statusCode === 400 && r.json().error.code === 'INVALID_TOKEN').length, 19);
    const { scanners } = await adminCall<{ scanners: { scanner_id: string }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${eid}/scanners`,
    );
    assert.equal(scanners.filter((s) => s.scanner_id.startsWith('dev-')).length, 1);
  });

  it('the scanner record keeps name, platform, gate and last_seen_at', async () => {
    const scannerId = randomUUID();
    const { token } = await newToken({ gate_id: 'south' });
    const key = (
      await enroll({ token, scanner_id: scannerId, scanner_name: 'Door 3', scanner_platform: 'iOS' })
    ).json();
    const { scanners } = await adminCall<{ scanners: Record<string, unknown>[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${eid}/scanners`,
    );
    const record = scanners.find((s) => s.scanner_id === scannerId)!;
    assert.deepEqual(record, {
      scanner_id: scannerId,
      name: 'Door 3',
      platform: 'iOS',
      api_key_id: key.api_key_id,
      gate_id: 'south',
      enrolled_at: '2026-06-01T12:00:00Z',
      expires_at: '2026-06-03T18:00:00Z',
      last_seen_at: '2026-06-01T12:00:00Z',
      revoked_at: null,
      allow_search: false,
      clock_offset_s: null,
    });
  });
});
