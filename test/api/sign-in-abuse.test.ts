import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { ADMIN_TOKEN, NO_LIMITS, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { allAudit } from '../helpers/audit.ts';
import { accept, activePerson, addPerson, GOOD_PASSWORD } from '../helpers/invitations.ts';
import type { App } from '../../src/http/context.ts';

/**
 * The people routes under attack (CONTRACT.md, "Abuse of the people routes"): what an attacker
 * without any credential can make the issuer do. Each request carries a made-up Bearer, as a flood
 * that hopes for a fresh allowance per credential would; whether a password was hashed is read from
 * the issuer's own metrics (`issuer_password_hashes_total`).
 */
const randomBearer = () => ({ authorization: `Bearer sk_live_${randomBytes(24).toString('base64url')}` });
const from = (address: string) => ({ remoteAddress: address });

function signIn(app: App, email: string, password: string, address = '203.0.113.7') {
  return app.inject({
    method: 'POST',
    url: '/admin/v1/session',
    headers: randomBearer(),
    payload: { email, password },
    ...from(address),
  });
}

function acceptFrom(app: App, token: string, address: string, password = GOOD_PASSWORD) {
  return app.inject({
    method: 'POST',
    url: '/admin/v1/invitations/accept',
    headers: randomBearer(),
    payload: { invite_token: token, password },
    ...from(address),
  });
}

/** The password hashes this instance made so far, and those it refused as busy. */
async function hashes(app: App): Promise<{ hashed: number; busy: number }> {
  const text = (await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
  const read = (result: string) =>
    Number(new RegExp(`^issuer_password_hashes_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1]);
  return { hashed: read('hashed'), busy: read('busy') };
}

const issuers: TestIssuer[] = [];
async function issuerWith(env: Record<string, string>): Promise<TestIssuer> {
  const t = await testIssuer({ env: { ...NO_LIMITS, ...env } });
  issuers.push(t);
  return t;
}
after(() => Promise.all(issuers.map((t) => t.close())));

describe('the people routes are limited per client address, whatever credential is presented', () => {
  it('a random Bearer on each sign-in gets no allowance of its own', async () => {
    const t = await issuerWith({ RATE_LIMIT_SIGNIN_PER_IP: '5' });
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await signIn(t.app, `nobody-${i}@example.test`, 'x'.repeat(1024)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [401, 401, 401, 401, 401, 429, 429],
    );
    assert.ok(Number(answers[5]!.headers['retry-after']) >= 1);
    assert.equal(answers[5]!.json().error.code, 'RATE_LIMITED');
    // The invitation and single sign-on routes share the address's allowance.
    assert.equal((await acceptFrom(t.app, `inv_${'a'.repeat(43)}`, '203.0.113.7')).statusCode, 429);
    const sso = await t.app.inject({ url: '/admin/v1/sso/start', headers: randomBearer(), ...from('203.0.113.7') });
    assert.equal(sso.statusCode, 429);
    // Another address has its own.
    assert.equal((await signIn(t.app, 'nobody@example.test', 'x'.repeat(20), '198.51.100.9')).statusCode, 401);
  });
});

describe('the failure budget is checked before any hash', () => {
  it('an address past its budget is refused 429 with the right password, and nothing is hashed', async () => {
    const t = await issuerWith({ RATE_LIMIT_AUTH_FAILURES_PER_IP: '3' });
    const person = await activePerson(t.app);
    for (let i = 0; i < 3; i++) {
      assert.equal((await signIn(t.app, `guess-${i}@example.test`, `guess number ${i}`)).statusCode, 401);
    }
    const before = await hashes(t.app);
    const right = await signIn(t.app, person.email, GOOD_PASSWORD);
    assert.equal(right.statusCode, 429, right.body);
    assert.ok(Number(right.headers['retry-after']) >= 1);
    for (let i = 0; i < 50; i++) assert.equal((await signIn(t.app, person.email, GOOD_PASSWORD)).statusCode, 429);
    assert.deepEqual(await hashes(t.app), before, 'no password hashed for a held address');
    // 51 refusals on hold: one audit entry (the rest are counted for the next minute's).
    const held = (await allAudit(t.app)).filter(
      (e) => e.action === 'session.sign_in_failed' && (e.details as { reason?: string }).reason === 'address_held',
    );
    assert.equal(held.length, 1);
    assert.equal((held[0]!.details as { count: number }).count, 1);
    // Another address signs in.
    assert.equal((await signIn(t.app, person.email, GOOD_PASSWORD, '198.51.100.9')).statusCode, 201);
  });
});

describe('an invitation is looked up before any hash', () => {
  it('a made-up invitation token answers 400 and costs no hash; a real one is hashed once', async () => {
    const t = await issuerWith({});
    const before = await hashes(t.app);
    for (let i = 0; i < 20; i++) {
      const made = await acceptFrom(t.app, `inv_${randomBytes(32).toString('base64url')}`, '203.0.113.7');
      assert.equal(made.statusCode, 400);
      assert.equal(made.json().error.details.fields[0].field, 'invite_token');
    }
    assert.equal((await hashes(t.app)).hashed, before.hashed, 'no hash for an unknown token');
    const person = await addPerson(t.app);
    assert.equal((await accept(t.app, person.inviteToken)).statusCode, 200);
    assert.equal((await hashes(t.app)).hashed, before.hashed + 1);
    // Used now: looked up, refused, not hashed.
    assert.equal((await accept(t.app, person.inviteToken)).statusCode, 400);
    assert.equal((await hashes(t.app)).hashed, before.hashed + 1);
  });
});

describe('hashing is bounded per instance', () => {
  it('beyond PASSWORD_HASH_CONCURRENCY hashes at once, 503 UNAVAILABLE with Retry-After before hashing', async () => {
    const t = await issuerWith({ PASSWORD_HASH_CONCURRENCY: '1' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => signIn(t.app, `flood-${i}@example.test`, 'y'.repeat(1024), `192.0.2.${i}`)),
    );
    const codes = answers.map((a) => a.statusCode);
    assert.ok(
      codes.every((code) => code === 401 || code === 503),
      String(codes),
    );
    const busy = answers.filter((a) => a.statusCode === 503);
    assert.ok(busy.length >= 1, 'one hash at a time: the others are shed');
    for (const refused of busy) {
      assert.equal(refused.json().error.code, 'UNAVAILABLE');
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.json().error.details.retry_after_seconds, 1);
    }
    const counted = await hashes(t.app);
    assert.equal(counted.busy, busy.length);
    assert.equal(counted.hashed, 8 - busy.length);
    // Once the flood is over, a sign-in is hashed again.
    assert.equal((await signIn(t.app, 'after@example.test', 'z'.repeat(20), '192.0.2.99')).statusCode, 401);
  });
});
