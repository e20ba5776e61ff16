import assert from 'node:assert/strict';
import { T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { activePerson, ADMIN, makeToken, sessionHeaders } from '../helpers/invitations.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const newEvent = { name: 'Token Fest', event_date: '2026-06-02T18:00:00Z' };

await eachBackend('personal API tokens through the API', ({ it, issuer }) => {
  const app = () => issuer().app;
  const get = (url: string, headers: Record<string, string>) => app().inject({ method: 'GET', url, headers });
  const list = async (headers: Record<string, string>) => {
    const res = await get('/admin/v1/api-tokens?limit=1000', headers);
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };

  it('a token is shown once, acts as its person with their role, and is listed without its secret', async () => {
    issuer().clock.set(T0);
    const person = await activePerson(app(), { role: 'manager' });
    const made = await makeToken(app(), await sessionHeaders(app(), person.email), { name: 'nightly export' });
    assert.match(made.token_id, /^tok_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.match(made.token, /^iat_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual([made.name, made.expires_at], ['nightly export', null]);
    const created = await app().inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: bearer(made.token),
      payload: newEvent,
    });
    assert.equal(created.statusCode, 201, 'a manager makes events');
    const users = await get('/admin/v1/users', bearer(made.token));
    assert.equal(users.statusCode, 403, 'a manager does not manage people');
    assert.equal(users.json().error.details.reason, 'role');
    const listed = await list(bearer(made.token));
    assert.ok(!listed.body.includes(made.token), 'the secret is never listed');
    assert.deepEqual(listed.json().api_tokens, [
      {
        token_id: made.token_id,
        user_id: person.user_id,
        name: 'nightly export',
        created_at: '2026-06-01T12:00:00Z',
        expires_at: null,
        last_used_at: '2026-06-01T12:00:00Z',
      },
    ]);
    const everyone = (await list(ADMIN)).json().api_tokens.map((t: { token_id: string }) => t.token_id);
    assert.ok(everyone.includes(made.token_id), "an owner's list holds everyone's tokens");
  });

  it("a deleted token is refused from the next request; a person cannot delete another's", async () => {
    const a = await activePerson(app(), { role: 'viewer' });
    const b = await activePerson(app(), { role: 'viewer' });
    const tokenA = await makeToken(app(), await sessionHeaders(app(), a.email));
    const tokenB = await makeToken(app(), await sessionHeaders(app(), b.email));
    const del = (id: string, headers: Record<string, string>) =>
      app().inject({ method: 'DELETE', url: `/admin/v1/api-tokens/${id}`, headers });
    assert.equal((await del(tokenB.token_id, bearer(tokenA.token))).statusCode, 404);
    assert.equal((await get('/admin/v1/events', bearer(tokenB.token))).statusCode, 200);
    const ownList = (await list(bearer(tokenA.token))).json().api_tokens.map((t: { token_id: string }) => t.token_id);
    assert.deepEqual(ownList, [tokenA.token_id], 'each person sees their own');
    assert.equal((await del(tokenA.token_id, bearer(tokenA.token))).statusCode, 204);
    const refused = await get('/admin/v1/events', bearer(tokenA.token));
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'UNAUTHORIZED');
    assert.equal((await del(tokenB.token_id, ADMIN)).statusCode, 204, 'an owner deletes anyone’s');
    assert.equal((await get('/admin/v1/events', bearer(tokenB.token))).statusCode, 401);
  });

  it('a token stops at its expires_at; one already past is refused at creation', async () => {
    issuer().clock.set(T0);
    const person = await activePerson(app());
    const session = await sessionHeaders(app(), person.email);
    const made = await makeToken(app(), session, { name: 'an hour', expires_at: '2026-06-01T13:00:00Z' });
    assert.equal(made.expires_at, '2026-06-01T13:00:00Z');
    assert.equal((await get('/admin/v1/events', bearer(made.token))).statusCode, 200);
    issuer().clock.set('2026-06-01T13:00:00Z');
    assert.equal((await get('/admin/v1/events', bearer(made.token))).statusCode, 401);
    const past = await app().inject({
      method: 'POST',
      url: '/admin/v1/api-tokens',
      headers: await sessionHeaders(app(), person.email),
      payload: { name: 'late', expires_at: '2026-06-01T12:59:00Z' },
    });
    assert.equal(past.statusCode, 400);
    assert.equal(past.json().error.details.fields[0].field, 'expires_at');
    issuer().clock.set(T0);
  });

  it('the admin token is no person: making a token with it is 403 with reason role', async () => {
    const res = await app().inject({
      method: 'POST',
      url: '/admin/v1/api-tokens',
      headers: ADMIN,
      payload: { name: 'nope' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
    assert.equal(res.json().error.details.reason, 'role');
    assert.match(res.json().error.message, /admin token/);
  });

  it('a personal token cannot make another one (it would outlive it): 403 with reason role', async () => {
    const person = await activePerson(app(), { role: 'manager' });
    const made = await makeToken(app(), await sessionHeaders(app(), person.email));
    const res = await app().inject({
      method: 'POST',
      url: '/admin/v1/api-tokens',
      headers: bearer(made.token),
      payload: { name: 'a token of a token' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
    assert.equal(res.json().error.details.reason, 'role');
    assert.match(res.json().error.message, /sign in/);
    const own = (await list(bearer(made.token))).json().api_tokens.map((t: { token_id: string }) => t.token_id);
    assert.deepEqual(own, [made.token_id], 'nothing was made');
  });

  it('disabling a person ends their session and deletes their tokens; enabling them brings neither back', async () => {
    const person = await activePerson(app(), { role: 'supervisor' });
    const session = await sessionHeaders(app(), person.email);
    const made = await makeToken(app(), session);
    const setDisabled = (disabled: boolean) =>
      app().inject({
        method: 'PATCH',
        url: `/admin/v1/users/${person.user_id}`,
        headers: ADMIN,
        payload: { disabled },
      });
    assert.equal((await setDisabled(true)).json().disabled, true);
    assert.equal((await get('/admin/v1/events', bearer(made.token))).statusCode, 401);
    assert.equal((await get('/admin/v1/events', session)).statusCode, 401);
    const theirs = await get(`/admin/v1/api-tokens?limit=1000`, ADMIN);
    assert.ok(!theirs.json().api_tokens.some((t: { user_id: string }) => t.user_id === person.user_id), 'deleted');
    assert.equal((await setDisabled(false)).json().disabled, false);
    assert.equal((await get('/admin/v1/events', bearer(made.token))).statusCode, 401, 'the old token stays dead');
    assert.equal((await get('/admin/v1/events', session)).statusCode, 401, 'the ended session stays ended');
    const fresh = await makeToken(app(), await sessionHeaders(app(), person.email));
    assert.equal((await get('/admin/v1/events', bearer(fresh.token))).statusCode, 200, 'a new token works');
  });

  it('an unknown or malformed personal token is 401', async () => {
    for (const token of [`iat_${'A'.repeat(43)}`, 'iat_short', `iat_${'!'.repeat(43)}`]) {
      const res = await get('/admin/v1/events', bearer(token));
      assert.equal(res.statusCode, 401, token);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
  });
});
