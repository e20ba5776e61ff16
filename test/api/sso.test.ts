import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/domain/ids.ts';
import { unseal } from '../../src/domain/key-encryption.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { adminCall, BASE_URL, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { type ProviderAccount, signInAtProvider, startProvider, type TestProvider } from '../helpers/oidc-provider.ts';

const CLIENT_ID = 'ticket-issuer';
const CLIENT_SECRET = 'provider-client-secret-3f9a1c7d';
const REDIRECT_URI = `${BASE_URL}/admin/v1/sso/callback`;
const PASSWORD = 'provider password';

const account = (sub: string, email: string, verified = true): ProviderAccount => ({
  sub,
  email,
  email_verified: verified,
  name: `${sub[0]!.toUpperCase()}${sub.slice(1)} Example`,
  password: PASSWORD,
});
const ACCOUNTS = [
  account('ada', 'Ada@Example.org'),
  account('ben', 'ben@example.org'),
  account('cy', 'cy@example.org', false),
  account('dee', 'dee@example.org'),
  account('eve', 'eve@example.org'),
  account('fay', 'fay@example.org'),
];

const ssoEnv = (issuer: string, extra: Record<string, string> = {}) => ({
  OIDC_ISSUER_URL: issuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: CLIENT_SECRET,
  ...extra,
});

/** A person of the organization, added (and disabled) through the admin API. */
async function person(t: TestIssuer, email: string, options: { disabled?: boolean } = {}) {
  const user = await adminCall<{ user_id: string }>(t.app, 'POST', '/admin/v1/users', {
    email,
    name: email,
    role: 'manager',
  });
  if (options.disabled) await adminCall(t.app, 'PATCH', `/admin/v1/users/${user.user_id}`, { disabled: true });
  return user;
}

const cookieOf = <C extends { name: string }>(res: { cookies: C[] }, name: string): C | undefined =>
  res.cookies.find((c) => c.name === name);

/** GET /admin/v1/sso/start: the provider's URL and the browser's state cookie. */
async function start(t: TestIssuer) {
  const res = await t.app.inject({ url: '/admin/v1/sso/start' });
  assert.equal(res.statusCode, 302, res.body);
  const state = cookieOf(res, 'issuer_sso_state');
  assert.ok(state, 'the state cookie is set');
  return { location: String(res.headers.location), state: state.value, res };
}

/** The provider's redirect back, as the browser sends it (with its state cookie unless null). */
function callback(t: TestIssuer, url: string, state: string | null) {
  const { pathname, search } = new URL(url);
  return t.app.inject({
    url: `${pathname}${search}`,
    headers: state === null ? {} : { cookie: `issuer_sso_state=${state}` },
  });
}

/** start → the provider's pages → the callback: the callback's answer. */
async function signOn(t: TestIssuer, email: string) {
  const started = await start(t);
  const back = await signInAtProvider(started.location, email, PASSWORD);
  return { res: await callback(t, back, started.state), back, state: started.state };
}

/** The person a console session cookie stands for, through GET /admin/v1/session and the store. */
async function signedInAs(t: TestIssuer, res: Awaited<ReturnType<typeof callback>>) {
  const session = cookieOf(res, 'issuer_console_session');
  assert.ok(session, 'the session cookie is set');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  assert.equal(session.path, '/admin/v1');
  const answer = await t.app.inject({ url: '/admin/v1/session', cookies: { issuer_console_session: session.value } });
  assert.equal(answer.statusCode, 200, answer.body);
  const stored = (await t.store.people.getSession(hashSecret(session.value)))?.user ?? null;
  // The console learns who it is from the session's answer.
  assert.equal(answer.json().user?.user_id, stored?.user_id);
  assert.equal(answer.json().role, stored?.role);
  return stored;
}

function refusedWith(res: Awaited<ReturnType<typeof callback>>, reason: string) {
  assert.equal(res.statusCode, 302, res.body);
  assert.equal(res.headers.location, `/console/#sso_error=${reason}`);
  assert.equal(cookieOf(res, 'issuer_console_session'), undefined, 'no session');
}

describe('single sign-on against a real OpenID Connect provider', () => {
  let provider: TestProvider;
  let t: TestIssuer;
  before(async () => {
    provider = await startProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      accounts: ACCOUNTS,
    });
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

describe('single sign-on: the default role, the ID token, the provider down, the limits', () => {
  let provider: TestProvider;
  before(async () => {
    // This provider puts email and email_verified in the ID token itself.
    provider = await startProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      accounts: ACCOUNTS,
      emailInIdToken: true,
    });
  });
  after(async () => provider.close());

  it('OIDC_DEFAULT_ROLE: an unknown verified email becomes a person of that role (no events for a viewer); unverified still nothing', async () => {
    const t = await testIssuer({ env: ssoEnv(provider.issuer, { OIDC_DEFAULT_ROLE: 'viewer' }) });
    try {
      const { res } = await signOn(t, 'eve@example.org');
      const user = await signedInAs(t, res);
      assert.equal(user?.email, 'eve@example.org');
      assert.equal(user?.role, 'viewer');
      assert.deepEqual(user?.events, []);
      assert.equal(user?.name, 'Eve Example');
      // The second time, the same person.
      assert.equal((await signedInAs(t, (await signOn(t, 'eve@example.org')).res))?.user_id, user?.user_id);
      refusedWith((await signOn(t, 'cy@example.org')).res, 'unverified');
    } finally {
      await t.close();
    }
    const managers = await testIssuer({ env: ssoEnv(provider.issuer, { OIDC_DEFAULT_ROLE: 'manager' }) });
    try {
      const user = await signedInAs(managers, (await signOn(managers, 'fay@example.org')).res);
      assert.equal(user?.role, 'manager');
      assert.equal(user?.events, null);
    } finally {
      await managers.close();
    }
  });

  it('the provider down: 503 with Retry-After in the envelope, never a 500; it is asked again after, and its discovery is kept', async () => {
    const port = provider.port;
    await provider.close();
    const t = await testIssuer({ env: ssoEnv(provider.issuer) });
    try {
      const down = await t.app.inject({ url: '/admin/v1/sso/start' });
      assert.equal(down.statusCode, 503);
      assert.equal(down.headers['retry-after'], '5');
      assert.equal(down.json().error.code, 'UNAVAILABLE');
      assert.equal(down.json().error.details.retry_after_seconds, 5);
      provider = await startProvider({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUri: REDIRECT_URI,
        accounts: ACCOUNTS,
        emailInIdToken: true,
        port,
      });
      // Within the 5 seconds the provider is not asked again...
      t.clock.advance(2_000);
      const waiting = await t.app.inject({ url: '/admin/v1/sso/start' });
      assert.equal(waiting.statusCode, 503);
      assert.equal(waiting.headers['retry-after'], '3');
      // ...after them it is, and sign-on works.
      t.clock.advance(3_000);
      await person(t, 'ada@example.org');
      const { res } = await signOn(t, 'ada@example.org');
      assert.equal((await signedInAs(t, res))?.email, 'ada@example.org');
      // Discovered once: with the provider gone again, start still leads there.
      await provider.close();
      const kept = await t.app.inject({ url: '/admin/v1/sso/start' });
      assert.equal(kept.statusCode, 302);
      assert.ok(String(kept.headers.location).startsWith(`${provider.issuer}/`));
    } finally {
      await t.close();
      provider = await startProvider({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectUri: REDIRECT_URI,
        accounts: ACCOUNTS,
        port,
      });
    }
  });

  it('a refused callback counts as a failed authentication of the client (429 past the limit)', async () => {
    const t = await testIssuer({ env: ssoEnv(provider.issuer, { RATE_LIMIT_AUTH_FAILURES_PER_IP: '2' }) });
    try {
      const bogus = '/admin/v1/sso/callback?code=x&state=not-a-state-of-this-issuer';
      for (let i = 0; i < 2; i += 1) refusedWith(await t.app.inject({ url: bogus }), 'expired');
      const limited = await t.app.inject({ url: bogus });
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error.code, 'RATE_LIMITED');
    } finally {
      await t.close();
    }
  });
});

const postgres = await postgresAvailability('single sign-on on PostgreSQL');

describe('single sign-on on PostgreSQL: two instances share the attempts', () => {
  const itPg = itUnless(postgres.skip);
  let provider: TestProvider;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let a: TestIssuer;
  let b: TestIssuer;
  before(async () => {
    if (postgres.skip !== undefined) return;
    assert.equal(postgres.problem, null, `PostgreSQL is required (REQUIRE_SERVICES=1): ${postgres.problem}`);
    provider = await startProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      accounts: ACCOUNTS,
    });
    database = await freshDatabase();
    a = await testIssuer({ store: await PostgresStore.open(database.url), env: ssoEnv(provider.issuer) });
    b = await testIssuer({ store: await PostgresStore.open(database.url), env: ssoEnv(provider.issuer) });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await provider?.close();
  });

  itPg('started on one instance, finished on the other; the same callback on both at once signs in once', async () => {
    await person(a, 'ada@example.org');
    const started = await start(a);
    const back = await signInAtProvider(started.location, 'ada@example.org', PASSWORD);
    const answers = await Promise.all([callback(a, back, started.state), callback(b, back, started.state)]);
    const signedIn = answers.filter((res) => res.headers.location === '/console/');
    assert.equal(signedIn.length, 1, 'one of the two signs in');
    refusedWith(
      answers.find((res) => res !== signedIn[0])!,
      'expired',
    );
    assert.equal((await signedInAs(b, signedIn[0]!))?.email, 'ada@example.org');
  });
});
