import assert from 'node:assert/strict';
import { HOUR_MS } from '../../src/domain/time.ts';
import { T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { accept, ADMIN, addPerson, inviteTokenOf } from '../helpers/invitations.ts';

interface Answer {
  user_id: string;
  invitation: 'pending' | 'accepted' | null;
}

await eachBackend('where a person’s invitation stands, through the API', ({ it, issuer }) => {
  const app = () => issuer().app;
  const call = async (method: 'GET' | 'PATCH' | 'POST', url: string, payload?: object) => {
    const res = await app().inject({ method, url, headers: ADMIN, ...(payload ? { payload } : {}) });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Answer & { users: Answer[]; invite_url: string };
  };
  /** The state of each person as the list, the person's own answer and a change of them say it. */
  async function stateOf(userId: string): Promise<Answer['invitation']> {
    const listed = (await call('GET', '/admin/v1/users?limit=1000')).users.find((u) => u.user_id === userId);
    const read = await call('GET', `/admin/v1/users/${userId}`);
    const changed = await call('PATCH', `/admin/v1/users/${userId}`, {});
    assert.equal(read.invitation, listed?.invitation, 'GET one and the list agree');
    assert.equal(changed.invitation, listed?.invitation, 'a PATCH answers it too');
    return read.invitation;
  }

  it('pending while a link is open, accepted once the password is set, pending again with a new link', async () => {
    issuer().clock.set(T0);
    const person = await addPerson(app());
    assert.equal((person as unknown as Answer).invitation, 'pending', 'the creation answers it');
    assert.equal(await stateOf(person.user_id), 'pending');
    const other = await addPerson(app(), { role: 'viewer' });

    assert.equal((await accept(app(), person.inviteToken)).statusCode, 200);
    assert.equal(await stateOf(person.user_id), 'accepted');
    assert.equal(await stateOf(other.user_id), 'pending', 'the other person’s link is still open');

    // A new link (a forgotten password) is open until it is used.
    const renewed = await call('POST', `/admin/v1/users/${person.user_id}/invite`);
    assert.equal(await stateOf(person.user_id), 'pending');
    assert.equal((await accept(app(), inviteTokenOf(renewed.invite_url), 'another long password')).statusCode, 200);
    assert.equal(await stateOf(person.user_id), 'accepted');
  });

  it('an expired link of someone without a password is neither pending nor accepted (null)', async () => {
    issuer().clock.set(T0);
    const person = await addPerson(app());
    const accepted = await addPerson(app());
    assert.equal((await accept(app(), accepted.inviteToken)).statusCode, 200);
    issuer().clock.advance(72 * HOUR_MS - 1000);
    assert.equal(await stateOf(person.user_id), 'pending', 'open until its 72 hours end');
    issuer().clock.advance(1000);
    assert.equal(await stateOf(person.user_id), null, 'expired');
    assert.equal(await stateOf(accepted.user_id), 'accepted', 'a password set stays accepted');
    await call('POST', `/admin/v1/users/${person.user_id}/invite`);
    assert.equal(await stateOf(person.user_id), 'pending', 'a new link is open again');
  });
});
