import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { signInAtProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import {
  callback,
  PASSWORD,
  person,
  refusedWith,
  signedInAs,
  signOn,
  ssoEnv,
  ssoProvider,
  start,
} from '../helpers/sso.ts';

describe('single sign-on: the default role, the ID token, the provider down, the limits', () => {
  let provider: TestProvider;
  before(async () => {
    // This provider puts email and email_verified in the ID token itself.
    provider = await ssoProvider({ emailInIdToken: true });
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
      provider = await ssoProvider({ emailInIdToken: true, port });
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
      provider = await ssoProvider({ port });
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
    provider = await ssoProvider();
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
