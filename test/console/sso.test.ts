import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type ProviderAccount, startProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  launchBrowser,
  openConsole,
  type RunningIssuer,
  sessionCookie,
  startIssuer,
} from './harness.ts';

browserSkipReason();

const CLIENT_ID = 'ticket-issuer';
const CLIENT_SECRET = 'provider-client-secret-7b21e0aa';
const PASSWORD = 'provider password';
const account = (sub: string, email: string, verified: boolean): ProviderAccount => ({
  sub,
  email,
  email_verified: verified,
  name: sub,
  password: PASSWORD,
});

/** A port nothing listens on right now, for the issuer: its redirect URI must be known to the provider first. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** From the console's sign-in: Sign in with SSO, then the provider's own pages, driven by their labels. */
async function signInWithSso(page: Page, email: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.getByRole('heading', { name: 'Test provider: log in' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
}

/** What GET /admin/v1/session answers the page (its cookie, sent by the browser). */
const sessionAnswer = (page: Page) =>
  page.evaluate(async () => {
    const res = await fetch('/admin/v1/session');
    return { status: res.status, body: (await res.json()) as { user?: { email: string } | null } };
  });

describe('console in Chromium: single sign-on with a real OpenID Connect provider', () => {
  let provider: TestProvider;
  let issuer: RunningIssuer;
  let browser: Browser;
  before(async () => {
    if (browserSkipReason() !== undefined) return;
    const port = await freePort();
    provider = await startProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: `http://127.0.0.1:${port}/admin/v1/sso/callback`,
      accounts: [
        account('ada', 'ada@example.org', true),
        account('ben', 'ben@example.org', true),
        account('cy', 'cy@example.org', false),
      ],
    });
    issuer = await startIssuer({
      port,
      env: { OIDC_ISSUER_URL: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET },
    });
    for (const email of ['ada@example.org', 'cy@example.org']) {
      await admin(issuer, 'POST', '/users', { email, name: email, role: 'manager' });
    }
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
    await provider?.close();
  });

  browserTest(
    'Sign in with SSO: the provider’s login and consent, then the console signed in as the person',
    async () => {
      const { context, page } = await openConsole(browser, issuer);
      try {
        await signInWithSso(page, 'ada@example.org');
        await page.waitForURL(`${issuer.url}/console/`);
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        const answer = await sessionAnswer(page);
        assert.equal(answer.status, 200);
        assert.equal(answer.body.user?.email, 'ada@example.org');
        const cookie = await sessionCookie(context);
        assert.ok(cookie, 'the session cookie is set');
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Strict');
        const state = (await context.cookies()).find((c) => c.name === 'issuer_sso_state');
        assert.equal(state, undefined, 'the state cookie is gone');
      } finally {
        await context.close();
      }
    },
  );

  for (const [email, why] of [
    ['ben@example.org', 'an unknown email'],
    ['cy@example.org', 'an unverified email'],
  ] as const) {
    browserTest(`${why} gets no session: the console says why and stays signed out`, async () => {
      const { context, page } = await openConsole(browser, issuer);
      try {
        await signInWithSso(page, email);
        await page.getByRole('alert').filter({ hasText: 'Single sign-on did not sign you in' }).waitFor();
        assert.equal(await sessionCookie(context), undefined);
        assert.equal((await sessionAnswer(page)).status, 401);
        assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
      } finally {
        await context.close();
      }
    });
  }
});
