import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminCall, BASE_URL, scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';

describe('GET /.well-known/ticket-issuer.json', () => {
  let t: TestIssuer;

  before(async () => {
    t = await testIssuer({ env: { ISSUER_NAME: 'Festival Tickets Ltd' } });
  });
  after(() => t.close());

  it('needs no authentication and carries the fields of the contract', async () => {
    const res = await t.app.inject({ url: '/.well-known/ticket-issuer.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    const { jwks, ...rest } = doc;
    assert.deepEqual(rest, {
      iss: BASE_URL,
      name: 'Festival Tickets Ltd',
      protocol_versions: ['1'],
      endpoints: {
        enroll: `${BASE_URL}/api/v1/scanners/enroll`,
        check_in: `${BASE_URL}/api/v1/tickets/check-in`,
        check_out: `${BASE_URL}/api/v1/tickets/check-out`,
        ticket_status: `${BASE_URL}/api/v1/tickets/{tid}/status`,
        changes: `${BASE_URL}/api/v1/events/{eid}/changes`,
      },
      ticket_token: { format: 'jws', alg: 'EdDSA' },
      max_offline_scan_age_seconds: 172800,
    });
    assert.equal(jwks.keys.length, 1);
    const [key] = jwks.keys;
    assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    assert.equal(key.kty, 'OKP');
    assert.equal(key.crv, 'Ed25519');
    assert.equal(key.alg, 'EdDSA');
    assert.equal(key.use, 'sig');
    assert.equal(Buffer.from(key.x, 'base64url').length, 32);
    assert.equal('d' in key, false, 'no private part');
  });

  it('sets Cache-Control and an ETag, and answers 304 to If-None-Match', async () => {
    const res = await t.app.inject({ url: '/.well-known/ticket-issuer.json' });
    assert.match(String(res.headers['cache-control']), /^public, max-age=\d+$/);
    const etag = String(res.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const cached = await t.app.inject({ url: '/.well-known/ticket-issuer.json', headers: { 'if-none-match': etag } });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, '');
    const stale = await t.app.inject({
      url: '/.well-known/ticket-issuer.json',
      headers: { 'if-none-match': '"other"' },
    });
    assert.equal(stale.statusCode, 200);
  });

  it('a key rotation changes the ETag and publishes both keys', async () => {
    const before = await t.app.inject({ url: '/.well-known/ticket-issuer.json' });
    await adminCall(t.app, 'POST', '/admin/v1/signing-keys/rotate');
    const after = await t.app.inject({
      url: '/.well-known/ticket-issuer.json',
      headers: { 'if-none-match': String(before.headers.etag) },
    });
    assert.equal(after.statusCode, 200);
    assert.equal(after.json().jwks.keys.length, 2);
  });

  it('the ticket QR codes carry the token as SVG and PNG', async () => {
    const s = await scenario(t.app);
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const svg = await t.app.inject({ url: `/admin/v1/tickets/${s.tid}/qr.svg`, headers: auth });
    assert.equal(svg.statusCode, 200);
    assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
    assert.match(svg.body, /^<svg[\s\S]*<\/svg>\s*$/);
    const png = await t.app.inject({ url: `/admin/v1/tickets/${s.tid}/qr.png`, headers: auth });
    assert.equal(png.statusCode, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    assert.deepEqual([...png.rawPayload.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const missing = await t.app.inject({ url: '/admin/v1/tickets/01J00000000000000000000000/qr.png', headers: auth });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'NOT_FOUND');
  });
});
