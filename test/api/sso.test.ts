import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { unseal } from '../../src/domain/key-encryption.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { signInAtProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import {
  callback,
  CLIENT_ID,
  CLIENT_SECRET,
  cookieOf,
  PASSWORD,
  person,
  REDIRECT_URI,
  refusedWith,
  signedInAs,
  signOn,
  ssoEnv,
  ssoProvider,
  start,
} from '../helpers/sso.ts';

describe('single sign-on against a real OpenID Connect provider', () => {
  let provider: TestProvider;
  let t: TestIssuer;
  before(async () => {
    provider = await ssoProvider();
    t = await testIssuer({ env: ssoEnv(provider.issuer) });
    await person(t, 'ada@example.org');
    await person(t, 'cy@example.org');
    await person(t, 'dee@example.org', { disabled: true });
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('GET /admin/v1/session/options says sso: true when configured, false otherwise', async () => {
    const res = await t.app.inject({ url: '/admin/v1/session/options' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { password: true, sso: true });
    const plain = await testIssuer();
    try {
      assert.deepEqual((await plain.app.inject({ url: '/admin/v1/session/options' })).json(), {
        password: true,
        sso: false,
      });
      for (const url of ['/admin/v1/sso/start', '/admin/v1/sso/callback?code=x&state=y']) {
        const off = await plain.app.inject({ url });
        assert.equal(off.statusCode, 404);
        assert.equal(off.json().error.code, 'NOT_FOUND');
      }
    } finally {
      await plain.close();
    }
  });

  it('start redirects to the provider with PKCE (S256), state and nonce; the verifier and nonce are sealed at rest', async () => {
    const { location, state, res } = await start(t);
    const url = new URL(location);
    assert.equal(url.origin, provider.issuer);
    const q = url.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('client_id'), CLIENT_ID);
    assert.equal(q.get('redirect_uri'), REDIRECT_URI);
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.deepEqual(q.get('scope')?.split(' ').sort(), ['email', 'openid', 'profile']);
    assert.equal(q.get('state'), state);
    assert.ok((q.get('nonce') ?? '').length >= 32);
    const cookie = cookieOf(res, 'issuer_sso_state')!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/admin/v1/sso/callback');
    assert.equal(cookie.maxAge, 600);
    // The attempt is kept under the state's SHA-256, its secrets sealed with the key-encryption key.
    const hash = createHash('sha256').update(state).digest('base64url');
    const stored = await t.store.sso.takeLogin(hash);
    assert.ok(stored, 'the attempt is stored under the digest of its state');
    assert.equal(stored.expires_at, new Date(Date.parse(T0) + 10 * 60_000).toISOString());
    assert.ok(!stored.sealed.includes(state) && !stored.sealed.includes(q.get('nonce')!));
    const { verifier, nonce } = JSON.parse(unseal(Buffer.alloc(32, 7), stored.sealed, `sso_login:${hash}`).toString());
    assert.equal(nonce, q.get('nonce'));
    assert.equal(createHash('sha256').update(verifier).digest('base64url'), q.get('code_challenge'));
  });

  it('an invited person with a verified email is signed in: the session cookie, then the console', async () => {
    const { res } = await signOn(t, 'Ada@Example.org');
    assert.equal(res.headers.location, '/console/');
    const user = await signedInAs(t, res);
    assert.equal(user?.email, 'ada@example.org');
    const cleared = cookieOf(res, 'issuer_sso_state');
    assert.ok(cleared && cleared.value === '', 'the state cookie is cleared');
  });

  it('a replayed callback (the same state) is refused, and signs nobody in', async () => {
    const { res, back, state } = await signOn(t, 'ada@example.org');
    assert.equal(res.headers.location, '/console/');
    refusedWith(await callback(t, back, state), 'expired');
  });

  it('an unknown email, an unverified email and a disabled person get no session', async () => {
    refusedWith((await signOn(t, 'ben@example.org')).res, 'unknown');
    refusedWith((await signOn(t, 'cy@example.org')).res, 'unverified');
    refusedWith((await signOn(t, 'dee@example.org')).res, 'disabled');
  });

  it('a callback from another browser (no state cookie, or another attempt’s) is refused', async () => {
    const started = await start(t);
    const back = await signInAtProvider(started.location, 'ada@example.org', PASSWORD);
    const other = await start(t);
    refusedWith(await callback(t, back, other.state), 'expired');
    const again = await start(t);
    const backAgain = await signInAtProvider(again.location, 'ada@example.org', PASSWORD);
    refusedWith(await callback(t, backAgain, null), 'expired');
  });

  it('an attempt older than 10 minutes is refused', async () => {
    const started = await start(t);
    const back = await signInAtProvider(started.location, 'ada@example.org', PASSWORD);
    t.clock.advance(10 * 60_000 + 1);
    try {
      refusedWith(await callback(t, back, started.state), 'expired');
    } finally {
      t.clock.set(T0);
    }
  });

  it("the provider's error answer, or a code it did not issue, signs nobody in", async () => {
    const started = await start(t);
    const denied = `${REDIRECT_URI}?error=access_denied&state=${started.state}&iss=${encodeURIComponent(provider.issuer)}`;
    refusedWith(await callback(t, denied, started.state), 'denied');
    const forged = await start(t);
    const url = `${REDIRECT_URI}?code=not-a-code-of-the-provider&state=${forged.state}&iss=${encodeURIComponent(provider.issuer)}`;
    refusedWith(await callback(t, url, forged.state), 'failed');
  });

  it('the database file holds no secret of an attempt: not the state, verifier, nonce, code or client secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-sso-'));
    const file = join(dir, 'issuer.db');
    const onFile = await testIssuer({ store: new SqliteStore(file), env: ssoEnv(provider.issuer) });
    try {
      await person(onFile, 'ada@example.org');
      const started = await start(onFile);
      const nonce = new URL(started.location).searchParams.get('nonce')!;
      const hash = createHash('sha256').update(started.state).digest('base64url');
      const peek = new Database(file, { readonly: true });
      const { sealed } = peek.prepare('SELECT sealed FROM sso_logins WHERE state_hash = ?').get(hash) as {
        sealed: string;
      };
      peek.close();
      const { verifier } = JSON.parse(unseal(Buffer.alloc(32, 7), sealed, `sso_login:${hash}`).toString());
      const back = await signInAtProvider(started.location, 'ada@example.org', PASSWORD);
      assert.equal((await callback(onFile, back, started.state)).headers.location, '/console/');
      const code = new URL(back).searchParams.get('code')!;
      const bytes = readdirSync(dir)
        .map((name) => readFileSync(join(dir, name)).toString('latin1'))
        .join('');
      for (const [what, secret] of Object.entries({ state: started.state, verifier, nonce, code, CLIENT_SECRET })) {
        assert.ok(!bytes.includes(secret), `the ${what} is in the database file`);
      }
    } finally {
      await onFile.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no log line carries the code, the state or the client secret', async () => {
    const { back, state } = await signOn(t, 'ada@example.org');
    const code = new URL(back).searchParams.get('code')!;
    assert.ok(t.logs.text.includes('/admin/v1/sso/callback'), 'the callback was logged');
    for (const secret of [code, state, CLIENT_SECRET]) assert.ok(!t.logs.text.includes(secret));
  });
});
