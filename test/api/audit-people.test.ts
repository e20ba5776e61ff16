import assert from 'node:assert/strict';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN, adminCall, T0 } from '../helpers/app.ts';
import { allAudit, type AuditEntry, call, eachAuditBackend, recordsNone, recordsOne } from '../helpers/audit.ts';
import { accept, addPerson, GOOD_PASSWORD, makeToken, postSession, sessionHeaders } from '../helpers/invitations.ts';

const NOBODY = { user_id: null, name: 'not signed in' };

/** The entries added by `work`, oldest first. */
async function added(app: App, work: () => Promise<unknown>): Promise<AuditEntry[]> {
  const before = (await allAudit(app)).length;
  await work();
  const after = await allAudit(app);
  return after.slice(0, after.length - before).reverse();
}

const summary = (e: AuditEntry) => [e.action, e.actor.via, e.actor.user_id, e.target];

await eachAuditBackend('Audit trail of people', ({ backend, it, issuer, sql }) => {
  it(`${backend}: sign-ins, failed ones, sign-outs and a person's writes name the person and how they signed`, async () => {
    const app = issuer().app;
    const secrets: string[] = [ADMIN_TOKEN, GOOD_PASSWORD];
    let person = { user_id: '', email: '', inviteToken: '' };
    const invited = await added(app, async () => {
      person = await addPerson(app, { name: 'Grace Hopper', role: 'manager' });
    });
    secrets.push(person.inviteToken);
    assert.deepEqual(invited.map(summary), [['user.create', 'admin_token', null, person.user_id]]);
    assert.deepEqual(invited[0]!.details, { email: person.email, name: 'Grace Hopper', role: 'manager' });
    // Accepting the invitation is recorded as the person it names, by the transaction that sets the password.
    const accepted = await added(app, async () =>
      assert.equal((await accept(app, person.inviteToken)).statusCode, 200),
    );
    assert.deepEqual(accepted.map(summary), [['user.accept_invitation', 'invitation', person.user_id, person.user_id]]);
    assert.equal(accepted[0]!.actor.name, 'Grace Hopper');
    assert.deepEqual(accepted[0]!.details, {});
    // A refused (used) invitation changes nothing and records nothing but its 400.
    assert.deepEqual(
      await added(app, async () => assert.equal((await accept(app, person.inviteToken)).statusCode, 400)),
      [],
    );

    let session: Record<string, string> = {};
    let token = { token_id: '', token: '' };
    let eid = '';
    const personal = await added(app, async () => {
      session = await sessionHeaders(app, person.email);
      eid = (
        await app.inject({
          method: 'POST',
          url: '/admin/v1/events',
          headers: session,
          payload: { name: 'Mine', event_date: '2026-06-02T18:00:00Z' },
        })
      ).json().eid;
      token = await makeToken(app, session, { name: 'box office script' });
      const headers = { authorization: `Bearer ${token.token}` };
      const made = await app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/tickets`,
        headers,
        payload: { holder_name: 'Lin', ticket_type: 'GA' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const revoked = await app.inject({
        method: 'POST',
        url: `/admin/v1/tickets/${made.json().tid}/revoke`,
        headers,
        payload: {},
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(
        (await app.inject({ method: 'DELETE', url: '/admin/v1/session', headers: session })).statusCode,
        204,
      );
    });
    secrets.push(token.token, session.cookie!.split('=')[1]!, session['x-csrf-token']!);
    const id = person.user_id;
    assert.deepEqual(personal.map(summary), [
      ['session.sign_in', 'session', id, person.email],
      ['event.create', 'session', id, eid],
      ['api_token.create', 'session', id, token.token_id],
      ['ticket.create', 'token', id, personal[3]!.target],
      ['ticket.revoke', 'token', id, personal[3]!.target],
      ['session.sign_out', 'session', id, person.email],
    ]);
    assert.ok(personal.every((e) => e.actor.name === 'Grace Hopper'));
    assert.equal(personal[4]!.eid, eid);
    assert.deepEqual(personal[2]!.details, { name: 'box office script' });

    // Refused sign-ins: the address typed (when it is one), why, never what was typed as the secret.
    const typedInEmail = 'hunter2-typed-in-the-email-field';
    secrets.push('wrong password 1234', typedInEmail, 'not-the-admin-token-0123456789');
    const refused = await added(app, async () => {
      assert.equal((await postSession(app, person.email, 'wrong password 1234')).statusCode, 401);
      assert.equal((await postSession(app, typedInEmail, GOOD_PASSWORD)).statusCode, 401);
      assert.equal((await postSession(app, 'nobody@example.test', GOOD_PASSWORD)).statusCode, 401);
      const badToken = await app.inject({
        method: 'POST',
        url: '/admin/v1/session',
        payload: { admin_token: 'not-the-admin-token-0123456789' },
      });
      assert.equal(badToken.statusCode, 401);
    });
    assert.deepEqual(
      refused.map((e) => [e.action, e.actor, e.target, e.details]),
      [
        ['session.sign_in_failed', { ...NOBODY, via: 'session' }, person.email, { reason: 'no_match' }],
        ['session.sign_in_failed', { ...NOBODY, via: 'session' }, null, { reason: 'no_match' }],
        ['session.sign_in_failed', { ...NOBODY, via: 'session' }, 'nobody@example.test', { reason: 'no_match' }],
        ['session.sign_in_failed', { ...NOBODY, via: 'admin_token' }, null, {}],
      ],
    );

    // The owner's changes of people.
    const owner = await added(app, async () => {
      await adminCall(app, 'POST', `/admin/v1/users/${id}/invite`, {});
      await call(app, 'DELETE', `/admin/v1/api-tokens/${token.token_id}`, undefined, 204);
      await adminCall(app, 'PATCH', `/admin/v1/users/${id}`, { disabled: true }, 200);
      await call(app, 'DELETE', `/admin/v1/users/${id}`, undefined, 204);
    });
    assert.deepEqual(owner.map(summary), [
      ['user.invite', 'admin_token', null, id],
      ['api_token.delete', 'admin_token', null, token.token_id],
      ['user.update', 'admin_token', null, id],
      ['user.delete', 'admin_token', null, id],
    ]);
    assert.deepEqual(owner[2]!.details, { disabled: true });

    // One person's entries, by user_id; no secret anywhere, answered or stored.
    const theirs = await allAudit(app, { user_id: id });
    assert.equal(theirs.length, accepted.length + personal.length);
    assert.ok(theirs.every((e) => e.actor.user_id === id));
    const answered = JSON.stringify(await allAudit(app));
    const stored = JSON.stringify(await sql('SELECT * FROM audit_log', 'rows'));
    for (const secret of secrets) {
      assert.ok(!answered.includes(secret) && !stored.includes(secret), `an entry holds ${secret.slice(0, 6)}…`);
    }
  });

  it(`${backend}: changing a person to what they are already writes nothing, neither the person nor an entry`, async () => {
    const app = issuer().app;
    issuer().clock.set('2026-06-01T11:59:00Z');
    const event = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: 'Same Fest',
      event_date: '2026-06-02T18:00:00Z',
    });
    const person = await addPerson(app, { name: 'Ada', role: 'viewer', events: [event.eid] });
    const id = person.user_id;
    const updatedAt = async () =>
      (await sql(`SELECT updated_at FROM users WHERE user_id = '${id}'`, 'rows'))[0]!.updated_at;
    const before = await updatedAt();
    issuer().clock.set(T0);
    await recordsNone(app, async () => {
      for (const same of [
        {},
        { name: 'Ada' },
        { role: 'viewer' },
        { events: [event.eid, event.eid] },
        { disabled: false },
        { name: 'Ada', role: 'viewer', events: [event.eid], disabled: false },
      ]) {
        const res = await call(app, 'PATCH', `/admin/v1/users/${id}`, same, 200);
        assert.deepEqual([res.name, res.role, res.events, res.disabled], ['Ada', 'viewer', [event.eid], false]);
      }
    });
    assert.equal(await updatedAt(), before, 'updated_at stays');
    await recordsOne(
      app,
      () => call(app, 'PATCH', `/admin/v1/users/${id}`, { name: 'Ada', disabled: true }, 200),
      () => ({ action: 'user.update', target: id, details: { name: 'Ada', disabled: true } }),
    );
    assert.notEqual(await updatedAt(), before, 'a real change moves updated_at');
    await recordsNone(app, () => call(app, 'PATCH', `/admin/v1/users/${id}`, { disabled: true }, 200));
  });
});
