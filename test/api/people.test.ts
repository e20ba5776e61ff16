import assert from 'node:assert/strict';
import { describe, it as plainIt } from 'node:test';
import { HOUR_MS } from '../../src/domain/time.ts';
import { ADMIN_TOKEN, adminCall, BASE_URL, T0, testIssuer } from '../helpers/app.ts';
import { allAudit } from '../helpers/audit.ts';
import { eachBackend } from '../helpers/backends.ts';
import {
  accept,
  activePerson,
  ADMIN,
  addPerson,
  GOOD_PASSWORD,
  inviteTokenOf,
  postSession,
  sessionHeaders,
} from '../helpers/invitations.ts';

await eachBackend('people and invitations through the API', ({ it, issuer }) => {
  const app = () => issuer().app;
  const call = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: object) =>
    app().inject({ method, url, headers: ADMIN, ...(payload ? { payload } : {}) });

  it('adds a person with a one-time invite_url; accepting it sets the password, once', async () => {
    issuer().clock.set(T0);
    const person = await addPerson(app(), { email: '  Grace.Hopper@Example.TEST ', role: 'viewer', events: null });
    assert.match(person.user_id, /^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(person.email, 'grace.hopper@example.test');
    assert.ok(person.invite_url.startsWith(`${BASE_URL}/console/#invite=inv_`), person.invite_url);
    const read = await adminCall(app(), 'GET', `/admin/v1/users/${person.user_id}`);
    assert.deepEqual(read, {
      user_id: person.user_id,
      email: 'grace.hopper@example.test',
      name: 'Grace Hopper',
      role: 'viewer',
      events: null,
      disabled: false,
      created_at: '2026-06-01T12:00:00Z',
      invitation: 'pending',
    });
    const accepted = await accept(app(), person.inviteToken);
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.deepEqual(accepted.json(), { user_id: person.user_id, email: 'grace.hopper@example.test' });
    const again = await accept(app(), person.inviteToken, 'another long password');
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error.code, 'INVALID_REQUEST');
    assert.deepEqual(
      again.json().error.details.fields.map((f: { field: string }) => f.field),
      ['invite_token'],
    );
    assert.equal((await postSession(app(), 'GRACE.HOPPER@example.test', GOOD_PASSWORD)).statusCode, 201);
    assert.equal((await postSession(app(), person.email, 'another long password')).statusCode, 401);
  });

  it('a password under 12 characters is 400 naming password, and the invitation stays usable', async () => {
    const person = await addPerson(app());
    const short = await accept(app(), person.inviteToken, 'elevenchars');
    assert.equal(short.statusCode, 400);
    assert.deepEqual(
      short.json().error.details.fields.map((f: { field: string }) => f.field),
      ['password'],
    );
    assert.equal((await accept(app(), person.inviteToken, 'twelve chars')).statusCode, 200);
    const unknown = await accept(app(), `inv_${'A'.repeat(43)}`);
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error.code, 'INVALID_REQUEST');
  });

  it('an invitation expires after 72 hours; a new one ends the old and works', async () => {
    issuer().clock.set(T0);
    const person = await addPerson(app());
    const renewed = await call('POST', `/admin/v1/users/${person.user_id}/invite`);
    assert.equal(renewed.statusCode, 201, renewed.body);
    assert.equal(renewed.json().expires_at, '2026-06-04T12:00:00Z');
    const fresh = inviteTokenOf(renewed.json().invite_url);
    assert.notEqual(fresh, person.inviteToken);
    assert.equal((await accept(app(), person.inviteToken)).statusCode, 400, 'the old invitation ended');
    issuer().clock.advance(72 * HOUR_MS);
    assert.equal((await accept(app(), fresh)).statusCode, 400, 'expired at 72 hours');
    const last = await call('POST', `/admin/v1/users/${person.user_id}/invite`);
    issuer().clock.advance(72 * HOUR_MS - 1000);
    assert.equal((await accept(app(), inviteTokenOf(last.json().invite_url))).statusCode, 200);
    assert.equal((await call('POST', '/admin/v1/users/usr_01HZZZZZZZZZZZZZZZZZZZZZZZ/invite')).statusCode, 404);
    issuer().clock.set(T0);
  });

  it('sign-in by email: the session answers the person and role; every refusal is the same 401', async () => {
    const person = await activePerson(app(), { role: 'supervisor', events: null });
    const ok = await postSession(app(), person.email, GOOD_PASSWORD);
    assert.equal(ok.statusCode, 201);
    const { csrf_token, expires_at, ...who } = ok.json();
    assert.equal(typeof csrf_token, 'string');
    assert.equal(typeof expires_at, 'string');
    const user = {
      user_id: person.user_id,
      email: person.email,
      name: 'Grace Hopper',
      role: 'supervisor',
      events: null,
    };
    assert.deepEqual(who, { role: 'supervisor', user });
    const cookie = ok.cookies.find((c) => c.name === 'issuer_console_session')!;
    const again = await app().inject({
      method: 'GET',
      url: '/admin/v1/session',
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    assert.deepEqual({ role: again.json().role, user: again.json().user }, { role: 'supervisor', user });
    const admin = await app().inject({ method: 'POST', url: '/admin/v1/session', payload: { admin_token: 'x' } });
    assert.equal(admin.statusCode, 401);
    const owner = await app().inject({
      method: 'POST',
      url: '/admin/v1/session',
      payload: { admin_token: ADMIN_TOKEN },
    });
    assert.deepEqual({ role: owner.json().role, user: owner.json().user }, { role: 'owner', user: null });

    const wrong = await postSession(app(), person.email, 'not the password at all');
    const unknown = await postSession(app(), 'nobody@example.test', GOOD_PASSWORD);
    const invited = await addPerson(app());
    const noPassword = await postSession(app(), invited.email, GOOD_PASSWORD);
    await call('PATCH', `/admin/v1/users/${person.user_id}`, { disabled: true });
    const disabled = await postSession(app(), person.email, GOOD_PASSWORD);
    for (const res of [wrong, unknown, noPassword, disabled]) {
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), wrong.json());
      assert.equal(res.cookies.length, 0);
    }
    assert.equal(wrong.json().error.code, 'UNAUTHORIZED');
    const both = await app().inject({
      method: 'POST',
      url: '/admin/v1/session',
      payload: { email: person.email, password: GOOD_PASSWORD, admin_token: 'x' },
    });
    assert.equal(both.statusCode, 400);
    assert.equal(
      (await app().inject({ method: 'POST', url: '/admin/v1/session', payload: { email: person.email } })).json().error
        .details.fields[0].field,
      'password',
    );
  });

  it('10 failures of one address within 15 minutes hold it for 15 minutes, the right password too', async () => {
    issuer().clock.set(T0);
    const person = await activePerson(app());
    for (let i = 0; i < 9; i += 1) {
      assert.equal((await postSession(app(), person.email, `wrong password ${i}`)).statusCode, 401);
      issuer().clock.advance(60_000);
    }
    const refused = await postSession(app(), person.email, 'wrong password 9');
    issuer().clock.advance(1000);
    const held = await postSession(app(), person.email, GOOD_PASSWORD);
    assert.equal(held.statusCode, 401);
    assert.deepEqual(held.json(), refused.json());
    issuer().clock.advance(15 * 60_000 - 2000);
    assert.equal((await postSession(app(), person.email, GOOD_PASSWORD)).statusCode, 401, 'still held');
    issuer().clock.advance(1000);
    assert.equal((await postSession(app(), person.email, GOOD_PASSWORD)).statusCode, 201, 'released');
    // Failures spread over more than 15 minutes hold nothing; an unknown address is held all the same.
    for (let i = 0; i < 10; i += 1) {
      await postSession(app(), person.email, 'wrong');
      issuer().clock.advance(2 * 60_000);
    }
    assert.equal((await postSession(app(), person.email, GOOD_PASSWORD)).statusCode, 201, 'no hold');
    for (let i = 0; i < 10; i += 1) await postSession(app(), 'ghost@example.test', 'wrong');
    const ghost = await postSession(app(), 'ghost@example.test', 'wrong');
    assert.deepEqual(ghost.json(), refused.json());
    issuer().clock.set(T0);
  });

  it('40 wrong passwords for one address at once: 10 are tried, the rest refused as held', async () => {
    issuer().clock.set(T0);
    const person = await activePerson(app());
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postSession(app(), person.email, `wrong password ${i}`)),
    );
    // Ten attempts are recorded before the hold: each is tried, or refused 503 while four hashes run.
    const busy = answers.filter((a) => a.statusCode === 503).length;
    assert.equal(answers.filter((a) => a.statusCode === 401).length, 40 - busy);
    const refusals = async () =>
      (await allAudit(app()))
        .filter((e) => e.action === 'session.sign_in_failed' && e.target === person.email)
        .map((e) => e.details as { reason: string; count?: number });
    const reasons = (await refusals()).map((d) => d.reason);
    assert.equal(reasons.filter((r) => r === 'no_match').length + busy, 10, 'passwords tried');
    // The 30 refused on hold are one entry a minute: the first at once, the rest counted for the next.
    assert.deepEqual(
      (await refusals()).filter((d) => d.reason === 'held'),
      [{ reason: 'held', count: 1 }],
    );
    assert.equal((await postSession(app(), person.email, GOOD_PASSWORD)).statusCode, 401, 'held');
    issuer().clock.advance(61_000);
    assert.equal((await postSession(app(), person.email, 'one more guess')).statusCode, 401, 'still held');
    assert.deepEqual(
      (await refusals())
        .filter((d) => d.reason === 'held')
        .map((d) => d.count)
        .sort((x, y) => x! - y!),
      [1, 31],
      'the next minute’s entry counts the 29 left, the right password and itself',
    );
    issuer().clock.advance(15 * 60_000 - 61_000);
    assert.equal((await postSession(app(), person.email, GOOD_PASSWORD)).statusCode, 201, 'released');
    issuer().clock.set(T0);
  });

  it('people are listed, changed and removed; a removed person is signed out', async () => {
    const event = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'People Fest',
      event_date: '2026-06-02T18:00:00Z',
    });
    const person = await activePerson(app(), { role: 'viewer', events: [event.eid] });
    const listed = await adminCall<{ users: { user_id: string }[] }>(app(), 'GET', '/admin/v1/users?limit=1000');
    assert.ok(listed.users.some((u) => u.user_id === person.user_id));
    const dup = await call('POST', '/admin/v1/users', { email: person.email, name: 'Copy', role: 'viewer' });
    assert.equal(dup.statusCode, 409);
    const changed = await call('PATCH', `/admin/v1/users/${person.user_id}`, { role: 'manager', name: 'G. H.' });
    assert.deepEqual([changed.json().role, changed.json().events, changed.json().name], ['manager', null, 'G. H.']);
    const badEvents = await call('PATCH', `/admin/v1/users/${person.user_id}`, { events: [event.eid] });
    assert.equal(badEvents.statusCode, 400, 'a manager reaches every event');
    const unknownEvent = await call('PATCH', `/admin/v1/users/${person.user_id}`, {
      role: 'viewer',
      events: ['evt_01HZZZZZZZZZZZZZZZZZZZZZZZ'],
    });
    assert.equal(unknownEvent.statusCode, 400);
    assert.equal(unknownEvent.json().error.details.fields[0].field, 'events');
    const session = await sessionHeaders(app(), person.email);
    assert.equal((await app().inject({ method: 'GET', url: '/admin/v1/events', headers: session })).statusCode, 200);
    assert.equal((await call('DELETE', `/admin/v1/users/${person.user_id}`)).statusCode, 204);
    assert.equal((await app().inject({ method: 'GET', url: '/admin/v1/events', headers: session })).statusCode, 401);
    assert.equal((await call('GET', `/admin/v1/users/${person.user_id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/admin/v1/users/${person.user_id}`)).statusCode, 404);
  });
});

describe('accepting invitations is limited like signing in', () => {
  plainIt('refused invitation tokens count as failed authentications of the client: 429 past the limit', async () => {
    const t = await testIssuer({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await accept(t.app, `inv_${String(i).repeat(43)}`)).statusCode);
      assert.deepEqual(statuses, [400, 400, 400, 429]);
    } finally {
      await t.close();
    }
  });
});
