import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, sign as edSign, verify as edVerify } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  ADMIN_TOKEN,
  adminCall,
  BASE_URL,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: string;
  use: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** Verifies a compact JWS with node:crypto alone: no code of the issuer is involved. */
function verifyWithJwks(
  token: string,
  keys: Jwk[],
): { header: Record<string, unknown>; payload: Record<string, unknown> } | null {
  const [h, p, sig] = token.split('.');
  if (!h || !p || !sig) return null;
  const header = decode(h);
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== 'EdDSA') return null;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const ok = edVerify(null, Buffer.from(`${h}.${p}`), key, Buffer.from(sig, 'base64url'));
  return ok ? { header, payload: decode(p) } : null;
}

describe('signed tickets', () => {
  let t: TestIssuer;
  let s: Scenario;

  before(async () => {
    t = await testIssuer();
  });
  beforeEach(async () => {
    s = await scenario(t.app, { ticket: { expires_at: '2026-06-03T00:00:00Z' } });
  });
  after(() => t.close());

  const jwks = async () => (await t.app.inject({ url: '/.well-known/ticket-issuer.json' })).json().jwks.keys as Jwk[];
  const withToken = (token: string, extra: Record<string, unknown> = {}) =>
    postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T12:00:00Z', { ticket_token: token, ...extra }));
  const scanLog = async () =>
    (await adminCall<{ scans: { outcome: string; reason: string }[] }>(t.app, 'GET', `/admin/v1/events/${s.eid}/scans`))
      .scans;

  describe('the ticket token', () => {
    it('is a compact JWS, EdDSA, with kid, verifiable with node:crypto from the published JWK', async () => {
      const verified = verifyWithJwks(s.ticketToken, await jwks());
      assert.ok(verified, 'the signature verifies with the discovery document’s key');
      assert.equal(verified.header.alg, 'EdDSA');
      assert.equal(typeof verified.header.kid, 'string');
      assert.deepEqual(verified.payload, {
        v: 1,
        iss: BASE_URL,
        tid: s.tid,
        eid: s.eid,
        ticket_type: 'GA',
        iat: Date.parse('2026-06-01T12:00:00Z') / 1000,
        exp: Date.parse('2026-06-03T00:00:00Z') / 1000,
        jti: verified.payload.jti,
      });
      assert.match(String(verified.payload.jti), /^[A-Za-z0-9_-]{22}$/, 'a 128-bit random token id');
    });

    it('a standard JOSE library verifies it with the discovery document’s key set, as the README shows', async () => {
      const discovery = (await t.app.inject({ url: '/.well-known/ticket-issuer.json' })).json();
      const { payload } = await jwtVerify(s.ticketToken, createLocalJWKSet(discovery.jwks), {
        issuer: discovery.iss,
        algorithms: ['EdDSA'],
        currentDate: new Date('2026-06-01T12:00:00Z'),
      });
      assert.equal(payload.tid, s.tid);
    });

    it('carries no exp when the ticket does not expire', async () => {
      const ticket = await adminCall<{ ticket_token: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
        holder_name: 'A',
        ticket_type: 'GA',
      });
      const verified = verifyWithJwks(ticket.ticket_token, await jwks());
      assert.ok(verified);
      assert.equal('exp' in verified.payload, false);
    });

    it('a tampered payload or a swapped signature does not verify', async () => {
      const [h, p, sig] = s.ticketToken.split('.') as [string, string, string];
      const other = await adminCall<{ ticket_token: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
        holder_name: 'B',
        ticket_type: 'GA',
      });
      const tampered = `${h}.${b64({ ...decode(p), ticket_type: 'VIP' })}.${sig}`;
      const swapped = `${h}.${p}.${other.ticket_token.split('.')[2]}`;
      const keys = await jwks();
      assert.equal(verifyWithJwks(tampered, keys), null);
      assert.equal(verifyWithJwks(swapped, keys), null);
    });
  });

  describe('check-in with ticket_token', () => {
    it('a genuine token checks in', async () => {
      const res = await withToken(s.ticketToken);
      assert.equal(res.json().status, 'valid');
    });

    it('a scanner that reports signature_valid false turned the holder away: invalid_signature even with a genuine token, and the ticket stays unused', async () => {
      const res = await withToken(s.ticketToken, { signature_valid: false });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().status, 'invalid_signature');
      assert.equal((await scanLog()).at(-1)!.reason, 'scanner reported an invalid signature');
      const status = await t.app.inject({
        url: `/api/v1/tickets/${s.tid}/status`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      assert.equal(status.json().status, 'valid');
      const next = await postCheckIn(
        t.app,
        s.apiKey,
        checkInBody(s, '2026-06-01T12:01:00Z', { ticket_token: s.ticketToken }),
      );
      assert.equal(next.json().status, 'valid', 'the next scan of the genuine token checks it in');
    });

    it('a ticket_token sent without signature_valid false is verified by the issuer, whose verdict decides', async () => {
      const res = await withToken(s.ticketToken, { signature_valid: true });
      assert.equal(res.json().status, 'valid');
    });

    for (const [name, mutate] of [
      [
        'a tampered payload',
        (tok: string) => {
          const [h, p, sig] = tok.split('.') as [string, string, string];
          return `${h}.${b64({ ...decode(p), ticket_type: 'VIP' })}.${sig}`;
        },
      ],
      [
        'a swapped signature',
        (tok: string) => {
          const [h, p] = tok.split('.');
          return `${h}.${p}.${Buffer.alloc(64, 1).toString('base64url')}`;
        },
      ],
      [
        'an unknown kid',
        (tok: string) => {
          const [h, p, sig] = tok.split('.') as [string, string, string];
          return `${b64({ ...decode(h), kid: 'no-such-key' })}.${p}.${sig}`;
        },
      ],
      ['garbage', () => 'not.a.jws'],
    ] as const) {
      it(`${name} gives invalid_signature (400), recorded in the scan log with the reason`, async () => {
        const body = checkInBody(s, '2026-06-01T12:00:00Z', { ticket_token: mutate(s.ticketToken) });
        const res = await postCheckIn(t.app, s.apiKey, body);
        assert.equal(res.statusCode, 400);
        assert.match(
          res.body,
          /^\{"status":"invalid_signature","ticket":null,"error":\{/,
          'the contract’s field order',
        );
        assert.deepEqual(res.json(), {
          status: 'invalid_signature',
          ticket: null,
          error: { code: 'INVALID_SIGNATURE', message: 'the ticket signature could not be verified', details: {} },
        });
        const replay = await postCheckIn(t.app, s.apiKey, body);
        assert.equal(replay.body, res.body);
        assert.equal(replay.statusCode, 400);
        const log = await scanLog();
        assert.equal(log[0]!.outcome, 'invalid_signature');
        assert.equal(typeof log[0]!.reason, 'string');
        const ticket = await adminCall(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
        assert.equal(ticket.checked_in_at, null);
      });
    }

    it('a token signed by another issuer’s key gives invalid_signature', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const kid = (await jwks())[0]!.kid;
      const h = b64({ alg: 'EdDSA', kid });
      const p = b64({ v: 1, iss: BASE_URL, tid: s.tid, eid: s.eid, ticket_type: 'GA', iat: 1 });
      const forged = `${h}.${p}.${edSign(null, Buffer.from(`${h}.${p}`), privateKey).toString('base64url')}`;
      const res = await withToken(forged);
      assert.equal(res.json().status, 'invalid_signature');
    });

    it('a genuine token of another ticket (tid or eid differing from the body) gives invalid_signature', async () => {
      const other = await adminCall<{ ticket_token: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
        holder_name: 'B',
        ticket_type: 'GA',
      });
      const res = await withToken(other.ticket_token);
      assert.equal(res.json().status, 'invalid_signature');
      assert.equal((await scanLog())[0]!.reason, 'token tid differs from the request');
    });

    it('a token with an unsupported v gives 400 PROTOCOL_VERSION_UNSUPPORTED, whatever signed it', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const h = b64({ alg: 'EdDSA', kid: 'a-future-key' });
      for (const v of [2, '1', 0]) {
        const p = b64({ v, iss: BASE_URL, tid: s.tid, eid: s.eid, ticket_type: 'GA', iat: 1 });
        const token = `${h}.${p}.${edSign(null, Buffer.from(`${h}.${p}`), privateKey).toString('base64url')}`;
        const res = await withToken(token);
        assert.equal(res.statusCode, 400, String(v));
        assert.equal(res.json().error.code, 'PROTOCOL_VERSION_UNSUPPORTED');
      }
      const ticket = await adminCall(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
      assert.equal(ticket.checked_in_at, null);
    });
  });

  it('refuses to start with a key-encryption key that does not open the stored signing keys', async () => {
    const { buildApp } = await import('../../src/app.ts');
    await assert.rejects(
      buildApp(t.config, { store: t.store, keyEncryptionKey: Buffer.alloc(32, 8), adminTokenHash: 'x' }),
      /KEY_ENCRYPTION_KEY/,
    );
  });

  describe('rotation', () => {
    it('old tickets verify after a rotation, new ones use the new kid, and removal ends the old key', async () => {
      const oldKid = decode(s.ticketToken.split('.')[0]!).kid;
      const rotated = await adminCall<Jwk & { status: string; created_at: string }>(
        t.app,
        'POST',
        '/admin/v1/signing-keys/rotate',
      );
      assert.equal(rotated.status, 'active');
      assert.notEqual(rotated.kid, oldKid);
      assert.equal(rotated.kty, 'OKP');
      assert.equal(rotated.crv, 'Ed25519');
      assert.equal(rotated.alg, 'EdDSA');
      assert.equal(rotated.use, 'sig');
      assert.equal('d' in rotated, false, 'the new public key, never its private part');

      const published = await jwks();
      assert.ok(published.some((k) => k.kid === oldKid));
      assert.deepEqual(
        published.find((k) => k.kid === rotated.kid),
        { kty: rotated.kty, crv: rotated.crv, x: rotated.x, kid: rotated.kid, alg: 'EdDSA', use: 'sig' },
        'the rotate answer is the key the discovery document publishes',
      );
      assert.ok(verifyWithJwks(s.ticketToken, published), 'a ticket sold before the rotation still verifies');
      const fresh = await adminCall<{ tid: string; ticket_token: string }>(
        t.app,
        'POST',
        `/admin/v1/events/${s.eid}/tickets`,
        {
          holder_name: 'New',
          ticket_type: 'GA',
        },
      );
      assert.equal(decode(fresh.ticket_token.split('.')[0]!).kid, rotated.kid);
      assert.equal((await withToken(s.ticketToken)).json().status, 'valid');

      const refuse = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/signing-keys/${rotated.kid}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(refuse.statusCode, 400, 'the active key cannot be removed');

      const removed = await adminCall<{ status: string }>(t.app, 'DELETE', `/admin/v1/signing-keys/${oldKid}`);
      assert.equal(removed.status, 'removed');
      const after = await jwks();
      assert.equal(
        after.some((k) => k.kid === oldKid),
        false,
        'a removed key is no longer published',
      );
      assert.equal(verifyWithJwks(s.ticketToken, after), null);
      const second = await scenario(t.app);
      const oldTicket = await adminCall<{ ticket_token: string }>(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
      assert.equal(oldTicket.ticket_token, s.ticketToken);
      const res = await postCheckIn(
        t.app,
        s.apiKey,
        checkInBody(s, '2026-06-01T12:00:00Z', { ticket_token: s.ticketToken }),
      );
      assert.equal(res.json().status, 'invalid_signature', 'a token of a removed key no longer verifies');
      assert.equal((await scanLog()).at(-1)!.reason, 'removed kid');
      const unchecked = await adminCall<{ ticket_token: string; tid: string }>(
        t.app,
        'GET',
        `/admin/v1/tickets/${second.tid}`,
      );
      assert.equal(decode(unchecked.ticket_token.split('.')[0]!).kid, rotated.kid);

      const list = await adminCall<{ keys: { kid: string; status: string }[] }>(t.app, 'GET', '/admin/v1/signing-keys');
      assert.equal(list.keys.find((k) => k.kid === oldKid)!.status, 'removed');
      assert.equal(list.keys.find((k) => k.kid === rotated.kid)!.status, 'active');
      const unknown = await t.app.inject({
        method: 'DELETE',
        url: '/admin/v1/signing-keys/nope',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(unknown.statusCode, 404);
    });
  });
});
