import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { allAudit, type AuditEntry } from '../helpers/audit.ts';
import type { TestProvider } from '../helpers/oidc-provider.ts';
import { CLIENT_SECRET, PASSWORD, refusedWith, signedInAs, signOn, ssoEnv, ssoProvider } from '../helpers/sso.ts';

const summary = (e: AuditEntry) => [e.action, e.actor, e.target, e.details];

describe('the audit trail of single sign-on', () => {
  let provider: TestProvider;
  let t: TestIssuer;
  before(async () => {
    provider = await ssoProvider();
    t = await testIssuer({ env: ssoEnv(provider.issuer, { OIDC_DEFAULT_ROLE: 'viewer' }) });
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('a first sign-in records the person it makes and the sign-in; a refused one records why, never a secret', async () => {
    const first = await signOn(t, 'eve@example.org');
    const eve = (await signedInAs(t, first.res))!;
    await signedInAs(t, (await signOn(t, 'eve@example.org')).res);
    refusedWith((await signOn(t, 'cy@example.org')).res, 'unverified');
    const entries = (await allAudit(t.app)).reverse();
    const person = { user_id: eve.user_id, name: 'Eve Example', via: 'session' };
    assert.deepEqual(entries.map(summary), [
      ['user.create', { user_id: null, name: 'single sign-on', via: 'session' }, eve.user_id, { with: 'sso' }],
      ['session.sign_in', person, 'eve@example.org', { with: 'sso' }],
      ['session.sign_in', person, 'eve@example.org', { with: 'sso' }],
      [
        'session.sign_in_failed',
        { user_id: null, name: 'not signed in', via: 'session' },
        'cy@example.org',
        { with: 'sso', reason: 'unverified' },
      ],
    ]);
    const text = JSON.stringify(entries);
    for (const secret of [CLIENT_SECRET, PASSWORD, first.state]) assert.ok(!text.includes(secret));
  });
});
