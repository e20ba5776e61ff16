import assert from 'node:assert/strict';
import { after } from 'node:test';
import { adminCall, type TestIssuer } from '../helpers/app.ts';
import { ADMIN } from '../helpers/invitations.ts';
import { allAudit } from '../helpers/audit.ts';
import { eachBackend } from '../helpers/backends.ts';
import { type ProviderAccount, signInAtProvider, startProvider } from '../helpers/oidc-provider.ts';
import {
  callback,
  CLIENT_ID,
  CLIENT_SECRET,
  PASSWORD,
  REDIRECT_URI,
  refusedWith,
  signedInAs,
  ssoEnv,
  start,
} from '../helpers/sso.ts';

/** An account of the provider; the tests log in by its subject, and may change its email meanwhile. */
const account = (sub: string, email: string, verified = true): ProviderAccount => ({
  sub,
  email,
  email_verified: verified,
  name: `Account ${sub}`,
  password: PASSWORD,
});
const ACCOUNTS = [
  // Look-alikes of kevin@example.com, each vouched for by the provider.
  account('mallory-kelvin', '\u212Aevin@example.com'),
  account('mallory-nbsp', '\u00A0kevin@example.com'),
  account('mallory-emsp', 'kevin@example.com\u2003'),
  account('mallory-tab', '\tkevin@example.com'),
  account('mallory-bom', '\uFEFFkevin@example.com'),
  // Kevin himself, with ASCII spaces and ASCII capitals around his address.
  account('kevin', '  KEVIN@Example.COM '),
  account('ada', 'ada@example.org'),
  account('ada-twin', 'ada@example.org'),
  account('bo', 'bo@example.org'),
  account('cleo', 'cleo@example.org'),
  account('cleo-again', 'cleo@example.org'),
];
const byId = (sub: string) => ACCOUNTS.find((a) => a.sub === sub)!;

const provider = await startProvider({
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  redirectUri: REDIRECT_URI,
  accounts: ACCOUNTS,
  emailInIdToken: true,
});
after(() => provider.close());

/** start → the provider's pages, logged in as the account `sub` → the callback's answer. */
async function signOnAs(t: TestIssuer, sub: string) {
  const started = await start(t);
  return callback(t, await signInAtProvider(started.location, sub, PASSWORD), started.state);
}

async function addPerson(t: TestIssuer, email: string, role = 'owner') {
  return adminCall<{ user_id: string; email: string }>(t.app, 'POST', '/admin/v1/users', {
    email,
    name: email,
    role,
  });
}

await eachBackend(
  'single sign-on links a person to the provider’s (iss, sub)',
  ({ it, issuer }) => {
    it('a provider vouching for \\u212Aevin@example.com (Kelvin sign), or kevin@… with other spaces, is not kevin@example.com', async () => {
      const t = issuer();
      const kevin = await addPerson(t, 'kevin@example.com');
      for (const sub of ['mallory-kelvin', 'mallory-nbsp', 'mallory-emsp', 'mallory-tab', 'mallory-bom']) {
        refusedWith(await signOnAs(t, sub), 'unknown');
      }
      // Kevin's own address, with ASCII spaces and capitals only, is his: and now linked to his subject.
      const user = await signedInAs(t, await signOnAs(t, 'kevin'));
      assert.equal(user?.user_id, kevin.user_id);
      refusedWith(await signOnAs(t, 'mallory-kelvin'), 'unknown');
      const failed = (await allAudit(t.app)).filter((e) => e.action === 'session.sign_in_failed');
      assert.ok(failed.some((e) => e.target === '\u212Aevin@example.com' && e.details.reason === 'unknown'));
    });

    it('once linked, the same subject signs in as the same person after its email changed at the provider', async () => {
      const t = issuer();
      const ada = await addPerson(t, 'ada@example.org', 'manager');
      assert.equal((await signedInAs(t, await signOnAs(t, 'ada')))?.user_id, ada.user_id);
      const before = byId('ada').email;
      byId('ada').email = 'ada.lovelace@elsewhere.example';
      try {
        assert.equal((await signedInAs(t, await signOnAs(t, 'ada')))?.user_id, ada.user_id);
        // The person's address here stays the one the organization gave them.
        const shown = await adminCall<{ email: string }>(t.app, 'GET', `/admin/v1/users/${ada.user_id}`);
        assert.equal(shown.email, 'ada@example.org');
        // Another person with the new address is not who the linked subject is.
        const other = await addPerson(t, 'ada.lovelace@elsewhere.example', 'viewer');
        assert.equal((await signedInAs(t, await signOnAs(t, 'ada')))?.user_id, ada.user_id);
        assert.notEqual(ada.user_id, other.user_id);
      } finally {
        byId('ada').email = before;
      }
    });

    it('another subject vouched for with the same email does not take over a linked person', async () => {
      const t = issuer();
      const bo = await addPerson(t, 'bo@example.org');
      assert.equal((await signedInAs(t, await signOnAs(t, 'bo')))?.user_id, bo.user_id);
      const twin = byId('ada-twin');
      const before = twin.email;
      twin.email = 'bo@example.org';
      try {
        refusedWith(await signOnAs(t, 'ada-twin'), 'linked');
        twin.email = 'BO@example.org ';
        refusedWith(await signOnAs(t, 'ada-twin'), 'linked');
      } finally {
        twin.email = before;
      }
      const failed = (await allAudit(t.app)).find((e) => e.action === 'session.sign_in_failed');
      assert.deepEqual(failed?.details, { with: 'sso', reason: 'linked' });
      // Bo is still himself.
      assert.equal((await signedInAs(t, await signOnAs(t, 'bo')))?.user_id, bo.user_id);
    });

    it('a linked person disabled is refused by their subject; deleted, their address links afresh', async () => {
      const t = issuer();
      const cleo = await addPerson(t, 'cleo@example.org');
      assert.equal((await signedInAs(t, await signOnAs(t, 'cleo')))?.user_id, cleo.user_id);
      await adminCall(t.app, 'PATCH', `/admin/v1/users/${cleo.user_id}`, { disabled: true });
      refusedWith(await signOnAs(t, 'cleo'), 'disabled');
      refusedWith(await signOnAs(t, 'cleo-again'), 'linked');
      const deleted = await t.app.inject({ method: 'DELETE', url: `/admin/v1/users/${cleo.user_id}`, headers: ADMIN });
      assert.equal(deleted.statusCode, 204, deleted.body);
      refusedWith(await signOnAs(t, 'cleo'), 'unknown');
      const again = await addPerson(t, 'cleo@example.org', 'viewer');
      assert.equal((await signedInAs(t, await signOnAs(t, 'cleo-again')))?.user_id, again.user_id);
      refusedWith(await signOnAs(t, 'cleo'), 'linked');
    });
  },
  { env: ssoEnv(provider.issuer) },
);

await eachBackend(
  'single sign-on with OIDC_DEFAULT_ROLE: a look-alike address is a newcomer, never its look-alike',
  ({ it, issuer }) => {
    it('\\u212Aevin@example.com becomes a viewer of its own; kevin@example.com keeps his person and role', async () => {
      const t = issuer();
      const kevin = await addPerson(t, 'kevin@example.com');
      const newcomer = await signedInAs(t, await signOnAs(t, 'mallory-kelvin'));
      assert.notEqual(newcomer?.user_id, kevin.user_id);
      assert.equal(newcomer?.role, 'viewer');
      assert.equal(newcomer?.email, '\u212Aevin@example.com');
      assert.deepEqual(newcomer?.events, []);
      assert.equal((await signedInAs(t, await signOnAs(t, 'kevin')))?.user_id, kevin.user_id);
      assert.equal((await signedInAs(t, await signOnAs(t, 'mallory-kelvin')))?.user_id, newcomer?.user_id);
    });
  },
  { env: ssoEnv(provider.issuer, { OIDC_DEFAULT_ROLE: 'viewer' }) },
);
