import assert from 'node:assert/strict';
import { allAudit } from '../helpers/audit.ts';
import { eachBackend } from '../helpers/backends.ts';
import {
  accept,
  activePerson,
  ADMIN,
  addPerson,
  inviteTokenOf,
  makeToken,
  postSession,
  sessionHeaders,
} from '../helpers/invitations.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const NEW_PASSWORD = 'a brand new passphrase here';

await eachBackend('credentials die with their purpose: invitations and personal tokens', ({ it, issuer }) => {
  const app = () => issuer().app;
  const setDisabled = (userId: string, disabled: boolean) =>
    app().inject({ method: 'PATCH', url: `/admin/v1/users/${userId}`, headers: ADMIN, payload: { disabled } });
  const refusedInvitation = (res: Awaited<ReturnType<typeof accept>>) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'INVALID_REQUEST');
  };

  it('disabling a person ends their invitation: after disable and enable, the old link sets no password', async () => {
    // Someone kept the link of a person an owner disabled; the owner enables the person again later.
    const person = await addPerson(app(), { role: 'owner', events: null });
    assert.equal((await setDisabled(person.user_id, true)).statusCode, 200);
    assert.equal((await setDisabled(person.user_id, false)).json().disabled, false);
    refusedInvitation(await accept(app(), person.inviteToken, 'the holder of the old link'));
    assert.equal((await postSession(app(), person.email, 'the holder of the old link')).statusCode, 401);
    // A new link made after enabling works, once.
    const fresh = await app().inject({
      method: 'POST',
      url: `/admin/v1/users/${person.user_id}/invite`,
      headers: ADMIN,
    });
    assert.equal(fresh.statusCode, 201, fresh.body);
    const token = inviteTokenOf(fresh.json().invite_url);
    assert.equal((await accept(app(), token)).statusCode, 200);
    refusedInvitation(await accept(app(), person.inviteToken));
  });

  it('a person who already set a password: their new link ends with a disable too', async () => {
    const person = await activePerson(app(), { role: 'manager' });
    const again = await app().inject({
      method: 'POST',
      url: `/admin/v1/users/${person.user_id}/invite`,
      headers: ADMIN,
    });
    const link = inviteTokenOf(again.json().invite_url);
    await setDisabled(person.user_id, true);
    await setDisabled(person.user_id, false);
    refusedInvitation(await accept(app(), link, NEW_PASSWORD));
    assert.equal((await postSession(app(), person.email, NEW_PASSWORD)).statusCode, 401, 'the password is unchanged');
  });

  it('accepting an invitation (a new password) ends the personal tokens and sessions the old one opened', async () => {
    // The old password leaked, and with it a token was made; the owner sends a new link to reset it.
    const person = await activePerson(app(), { role: 'manager' });
    const session = await sessionHeaders(app(), person.email);
    const stolen = await makeToken(app(), session, { name: 'made by whoever had the password' });
    assert.equal((await app().inject({ url: '/admin/v1/events', headers: bearer(stolen.token) })).statusCode, 200);
    const reset = await app().inject({
      method: 'POST',
      url: `/admin/v1/users/${person.user_id}/invite`,
      headers: ADMIN,
    });
    assert.equal((await accept(app(), inviteTokenOf(reset.json().invite_url), NEW_PASSWORD)).statusCode, 200);
    assert.equal((await app().inject({ url: '/admin/v1/events', headers: bearer(stolen.token) })).statusCode, 401);
    assert.equal((await app().inject({ url: '/admin/v1/events', headers: session })).statusCode, 401);
    const listed = await app().inject({ url: '/admin/v1/api-tokens?limit=1000', headers: ADMIN });
    assert.ok(!listed.json().api_tokens.some((t: { user_id: string }) => t.user_id === person.user_id), 'deleted');
    // The person signs in with the new password and makes new tokens, which work.
    const fresh = await makeToken(app(), await sessionHeaders(app(), person.email, NEW_PASSWORD));
    assert.equal((await app().inject({ url: '/admin/v1/events', headers: bearer(fresh.token) })).statusCode, 200);
  });

  it('accepting an invitation is recorded with actor.via "invitation", naming the person', async () => {
    const person = await addPerson(app(), { name: 'Ida Invited', role: 'viewer', events: [] });
    assert.equal((await accept(app(), person.inviteToken)).statusCode, 200);
    const entry = (await allAudit(app())).find(
      (e) => e.action === 'user.accept_invitation' && e.target === person.user_id,
    );
    assert.ok(entry, 'the acceptance is recorded');
    assert.deepEqual(entry.actor, { user_id: person.user_id, name: 'Ida Invited', via: 'invitation' });
    // A refused token records nothing, whatever via.
    refusedInvitation(await accept(app(), person.inviteToken));
    const entries = await allAudit(app());
    assert.equal(entries.filter((e) => e.action === 'user.accept_invitation' && e.target === person.user_id).length, 1);
    assert.ok(!entries.some((e) => e.action === 'user.accept_invitation' && e.actor.via === 'token'));
  });
});
