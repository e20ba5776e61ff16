import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import { ADMIN_TOKEN, LogSink, T0 } from '../helpers/app.ts';
import { allAudit } from '../helpers/audit.ts';
import { activePerson, ADMIN, GOOD_PASSWORD, makeToken, postSession, sessionHeaders } from '../helpers/invitations.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { itUnless, postgresAvailability } from '../helpers/services.ts';

const availability = await postgresAvailability('people on two PostgreSQL instances');
const it = itUnless(availability.skip);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('people on two issuer instances sharing PostgreSQL', () => {
  const issuers = twoIssuersOnOneDatabase(availability, new FixedClock(T0));
  const get = (which: 'a' | 'b', url: string, headers: Record<string, string>) =>
    issuers()[which].app.inject({ method: 'GET', url, headers });

  it('disabling a person on one instance ends their session and tokens on the other at once', async () => {
    const { a, b } = issuers();
    const person = await activePerson(a.app, { role: 'manager' });
    const session = await sessionHeaders(a.app, person.email);
    const made = await makeToken(a.app, session);
    for (const which of ['a', 'b'] as const) {
      assert.equal((await get(which, '/admin/v1/events', session)).statusCode, 200, `session on ${which}`);
      assert.equal((await get(which, '/admin/v1/events', bearer(made.token))).statusCode, 200, `token on ${which}`);
    }
    const disabled = await b.app.inject({
      method: 'PATCH',
      url: `/admin/v1/users/${person.user_id}`,
      headers: ADMIN,
      payload: { disabled: true },
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    for (const which of ['a', 'b'] as const) {
      assert.equal((await get(which, '/admin/v1/events', session)).statusCode, 401, `session on ${which}`);
      assert.equal((await get(which, '/admin/v1/events', bearer(made.token))).statusCode, 401, `token on ${which}`);
    }
  });

  it('deleting a person on one instance ends their session and tokens on the other at once', async () => {
    const { a, b } = issuers();
    const person = await activePerson(b.app, { role: 'viewer' });
    const session = await sessionHeaders(b.app, person.email);
    const made = await makeToken(b.app, session);
    assert.equal((await get('a', '/admin/v1/events', bearer(made.token))).statusCode, 200);
    const removed = await a.app.inject({ method: 'DELETE', url: `/admin/v1/users/${person.user_id}`, headers: ADMIN });
    assert.equal(removed.statusCode, 204);
    assert.equal((await get('b', '/admin/v1/events', session)).statusCode, 401);
    assert.equal((await get('b', '/admin/v1/events', bearer(made.token))).statusCode, 401);
  });

  it("a new admin token ends the admin token's console sessions, not the sessions of people", async () => {
    const { a } = issuers();
    const person = await activePerson(a.app);
    const personSession = await sessionHeaders(a.app, person.email);
    const adminSignIn = await a.app.inject({
      method: 'POST',
      url: '/admin/v1/session',
      payload: { admin_token: ADMIN_TOKEN },
    });
    const cookie = adminSignIn.cookies.find((c) => c.name === 'issuer_console_session')!;
    const adminSession = { cookie: `${cookie.name}=${cookie.value}` };
    // An instance started after the admin token was replaced, on the same database.
    const newToken = 'a-replacement-admin-token-0123456789';
    const replaced = await buildApp(a.config, {
      store: a.store,
      clock: a.clock,
      keyEncryptionKey: Buffer.alloc(32, 7),
      adminTokenHash: hashSecret(newToken),
      logStream: new LogSink(),
      webhookWorker: false,
    });
    try {
      const read = (headers: Record<string, string>) =>
        replaced.inject({ method: 'GET', url: '/admin/v1/session', headers });
      assert.equal((await read(adminSession)).statusCode, 401);
      const still = await read({ cookie: personSession.cookie });
      assert.equal(still.statusCode, 200, still.body);
      assert.equal(still.json().user.user_id, person.user_id);
    } finally {
      await replaced.close();
    }
  });

  it('40 wrong passwords for one address at once, half on each instance: 10 are tried, then it is held', async () => {
    const { a, b } = issuers();
    const person = await activePerson(a.app);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postSession((i % 2 ? a : b).app, person.email, `wrong password ${i}`)),
    );
    // Ten attempts are recorded before the hold: each is tried, or refused 503 while its instance's
    // four hashes run.
    const busy = answers.filter((res) => res.statusCode === 503).length;
    assert.equal(answers.filter((res) => res.statusCode === 401).length, 40 - busy);
    const reasons = (await allAudit(a.app))
      .filter((e) => e.action === 'session.sign_in_failed' && e.target === person.email)
      .map((e) => (e.details as { reason: string }).reason);
    assert.equal(reasons.filter((r) => r === 'no_match').length + busy, 10, 'passwords tried');
    // Refusals on hold are summarized, one entry a minute per instance at most.
    assert.ok(reasons.filter((r) => r === 'held').length <= 2);
    assert.equal((await postSession(b.app, person.email, GOOD_PASSWORD)).statusCode, 401, 'held');
  });
});
