import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { testIssuer } from '../helpers/app.ts';
import { accept, ADMIN, addPerson, inviteTokenOf, makeToken, postSession } from '../helpers/invitations.ts';

const PASSWORD = 'a passphrase nobody may read 7341';
const WRONG = 'a wrong guess worth hiding 5512';

describe('passwords, invitations and personal tokens are never in a log or the database file in plain text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-people-secrets-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('after every flow that carries them, neither the log nor the SQLite files hold any of them', async () => {
    const store = new SqliteStore(join(dir, 'issuer.db'));
    const t = await testIssuer({ store });
    const secrets: Record<string, string> = { password: PASSWORD, wrong: WRONG };
    try {
      const person = await addPerson(t.app, { role: 'manager' });
      secrets.first_invite = person.inviteToken;
      const shortTry = await accept(t.app, person.inviteToken, 'too short');
      assert.equal(shortTry.statusCode, 400);
      assert.equal((await accept(t.app, person.inviteToken, PASSWORD)).statusCode, 200);
      const renewed = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/users/${person.user_id}/invite`,
        headers: ADMIN,
      });
      secrets.unused_invite = inviteTokenOf(renewed.json().invite_url);
      assert.equal((await postSession(t.app, person.email, WRONG)).statusCode, 401);
      const signedIn = await postSession(t.app, person.email, PASSWORD);
      assert.equal(signedIn.statusCode, 201);
      const cookie = signedIn.cookies.find((c) => c.name === 'issuer_console_session')!;
      secrets.session = cookie.value;
      const session = { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': signedIn.json().csrf_token };
      const made = await makeToken(t.app, session);
      secrets.token = made.token;
      // Each secret also travels where nothing redacts a field: in a URL, and in a header of its own.
      const carried = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/events?probe=${made.token}&invite=${secrets.unused_invite}`,
        headers: { authorization: `Bearer ${made.token}`, 'x-note': PASSWORD },
      });
      assert.equal(carried.statusCode, 200);
      await t.app.inject({ method: 'GET', url: `/admin/v1/nowhere/${secrets.unused_invite}` });
      await t.app.inject({
        method: 'POST',
        url: '/admin/v1/invitations/accept',
        payload: { invite_token: secrets.first_invite, password: PASSWORD },
      });
    } finally {
      await t.close();
    }

    const logs = t.logs.text;
    assert.ok(logs.includes('sign-in refused'), 'the flows were logged');
    assert.ok(logs.includes('/admin/v1/events?probe=[redacted]'), 'the URL was logged, masked');
    const files = readdirSync(dir).filter((name) => name.startsWith('issuer.db'));
    assert.ok(files.length > 0);
    const database = files.map((name) => readFileSync(join(dir, name)).toString('latin1')).join('\n');
    assert.ok(database.includes('$scrypt$ln='), 'the password is kept as an scrypt hash');
    for (const [what, secret] of Object.entries(secrets)) {
      assert.ok(!logs.includes(secret), `${what} in the log`);
      assert.ok(!database.includes(secret), `${what} in the database files`);
    }
  });
});
