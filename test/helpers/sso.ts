/** The single sign-on tests' provider, its client, its accounts, and the flow driven over HTTP. */
import assert from 'node:assert/strict';
import { hashSecret } from '../../src/domain/ids.ts';
import { adminCall, BASE_URL, type TestIssuer } from './app.ts';
import { type ProviderAccount, signInAtProvider, startProvider } from './oidc-provider.ts';

export const CLIENT_ID = 'ticket-issuer';
export const CLIENT_SECRET = 'provider-client-secret-3f9a1c7d';
export const REDIRECT_URI = `${BASE_URL}/admin/v1/sso/callback`;
export const PASSWORD = 'provider password';

const account = (sub: string, email: string, verified = true): ProviderAccount => ({
  sub,
  email,
  email_verified: verified,
  name: `${sub[0]!.toUpperCase()}${sub.slice(1)} Example`,
  password: PASSWORD,
});
export const ACCOUNTS = [
  account('ada', 'Ada@Example.org'),
  account('ben', 'ben@example.org'),
  account('cy', 'cy@example.org', false),
  account('dee', 'dee@example.org'),
  account('eve', 'eve@example.org'),
  account('fay', 'fay@example.org'),
];

export const ssoEnv = (issuer: string, extra: Record<string, string> = {}) => ({
  OIDC_ISSUER_URL: issuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: CLIENT_SECRET,
  ...extra,
});

/** A person of the organization, added (and disabled) through the admin API. */
export async function person(t: TestIssuer, email: string, options: { disabled?: boolean } = {}) {
  const user = await adminCall<{ user_id: string }>(t.app, 'POST', '/admin/v1/users', {
    email,
    name: email,
    role: 'manager',
  });
  if (options.disabled) await adminCall(t.app, 'PATCH', `/admin/v1/users/${user.user_id}`, { disabled: true });
  return user;
}

export const cookieOf = <C extends { name: string }>(res: { cookies: C[] }, name: string): C | undefined =>
  res.cookies.find((c) => c.name === name);

/** GET /admin/v1/sso/start: the provider's URL and the browser's state cookie. */
export async function start(t: TestIssuer) {
  const res = await t.app.inject({ url: '/admin/v1/sso/start' });
  assert.equal(res.statusCode, 302, res.body);
  const state = cookieOf(res, 'issuer_sso_state');
  assert.ok(state, 'the state cookie is set');
  return { location: String(res.headers.location), state: state.value, res };
}

/** The provider's redirect back, as the browser sends it (with its state cookie unless null). */
export function callback(t: TestIssuer, url: string, state: string | null) {
  const { pathname, search } = new URL(url);
  return t.app.inject({
    url: `${pathname}${search}`,
    headers: state === null ? {} : { cookie: `issuer_sso_state=${state}` },
  });
}

/** start → the provider's pages → the callback: the callback's answer. */
export async function signOn(t: TestIssuer, email: string) {
  const started = await start(t);
  const back = await signInAtProvider(started.location, email, PASSWORD);
  return { res: await callback(t, back, started.state), back, state: started.state };
}

/** The person a console session cookie stands for, through GET /admin/v1/session and the store. */
export async function signedInAs(t: TestIssuer, res: Awaited<ReturnType<typeof callback>>) {
  const session = cookieOf(res, 'issuer_console_session');
  assert.ok(session, 'the session cookie is set');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  assert.equal(session.path, '/admin/v1');
  const answer = await t.app.inject({ url: '/admin/v1/session', cookies: { issuer_console_session: session.value } });
  assert.equal(answer.statusCode, 200, answer.body);
  const stored = (await t.store.people.getSession(hashSecret(session.value)))?.user ?? null;
  // The console learns who it is from the session's answer.
  assert.equal(answer.json().user?.user_id, stored?.user_id);
  assert.equal(answer.json().role, stored?.role);
  return stored;
}

export function refusedWith(res: Awaited<ReturnType<typeof callback>>, reason: string) {
  assert.equal(res.statusCode, 302, res.body);
  assert.equal(res.headers.location, `/console/#sso_error=${reason}`);
  assert.equal(cookieOf(res, 'issuer_console_session'), undefined, 'no session');
}

/** The provider with the tests' client and accounts (email and email_verified in the ID token, or by user info only). */
export const ssoProvider = (options: { emailInIdToken?: boolean; port?: number } = {}) =>
  startProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    accounts: ACCOUNTS,
    ...options,
  });
