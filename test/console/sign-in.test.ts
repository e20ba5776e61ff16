import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import {
  ADMIN_TOKEN,
  browserSkipReason,
  browserTest,
  consoleFixture,
  openConsole,
  sessionCookie,
  signIn,
  signInWithPassword,
} from './harness.ts';
import { addPerson, PASSWORD } from './people-harness.ts';

browserSkipReason();

describe('console in Chromium: signing in and out', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest('a wrong admin token shows a role="alert" message and sets no cookie', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page, 'not-the-admin-token-0123456789');
      await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();
      assert.equal(await sessionCookie(context), undefined);
      assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), false);
    } finally {
      await context.close();
    }
  });

  browserTest(
    'signing in sets an HttpOnly, SameSite=Strict cookie; the token is in no storage script can read',
    async () => {
      const { context, page } = await openConsole(f.browser(), f.issuer());
      try {
        await signIn(page);
        await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        const cookie = await sessionCookie(context);
        assert.ok(cookie, 'the session cookie is set');
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Strict');
        assert.equal(cookie.path, '/admin/v1');
        assert.ok(!cookie.value.includes(ADMIN_TOKEN));
        const visible = await page.evaluate(() => ({
          local: JSON.stringify({ ...localStorage }),
          session: JSON.stringify({ ...sessionStorage }),
          cookie: document.cookie,
          inputs: [...document.querySelectorAll('input')].map((i) => i.value).join('|'),
        }));
        for (const [where, text] of Object.entries(visible)) {
          assert.ok(!text.includes(ADMIN_TOKEN), `the admin token is in ${where}`);
        }
        assert.equal(visible.cookie, '', 'document.cookie shows nothing');
      } finally {
        await context.close();
      }
    },
  );

  browserTest('a reload keeps the organizer signed in', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await page.reload();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.equal(await page.getByLabel('Admin token').count(), 0);
    } finally {
      await context.close();
    }
  });

  browserTest('a cookie-authenticated write without the CSRF token is refused with 403 FORBIDDEN', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      const answer = await page.evaluate(async () => {
        const res = await fetch('/admin/v1/events', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Forged', event_date: '2030-01-01T18:00:00Z' }),
        });
        return { status: res.status, body: await res.json() };
      });
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error.code, 'FORBIDDEN');
      const read = await page.evaluate(async () => (await fetch('/admin/v1/events')).status);
      assert.equal(read, 200, 'reads with the cookie alone work');
    } finally {
      await context.close();
    }
  });

  browserTest('"Sign out" ends the session on the server: the old cookie no longer works', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      const old = (await sessionCookie(context))!;
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Email').waitFor();
      assert.equal(await sessionCookie(context), undefined, 'the browser dropped the cookie');
      // Replayed from outside the browser, the old cookie must find no session on the server.
      const replay = await fetch(`${f.issuer().url}/admin/v1/events`, {
        headers: { cookie: `${old.name}=${old.value}` },
      });
      assert.equal(replay.status, 401);
    } finally {
      await context.close();
    }
  });

  browserTest(
    'email and password come first; the admin token replaces them, one Sign in button at a time',
    async () => {
      const { context, page } = await openConsole(f.browser(), f.issuer());
      const signInButtons = () => page.getByRole('button', { name: 'Sign in', exact: true }).count();
      try {
        await page.getByLabel('Email').waitFor();
        await page.getByLabel('Password', { exact: true }).waitFor();
        assert.equal(await signInButtons(), 1);
        assert.equal(await page.getByLabel('Admin token').count(), 0);
        await page.getByRole('button', { name: 'Sign in with the admin token' }).click();
        await page.getByLabel('Admin token').waitFor();
        assert.equal(await signInButtons(), 1);
        assert.equal(await page.getByLabel('Email').count(), 0);
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'admin_token');
        await page.getByRole('button', { name: 'Sign in with email and password' }).click();
        await page.getByLabel('Email').waitFor();
        assert.equal(await page.getByLabel('Admin token').count(), 0);
        assert.equal(await signInButtons(), 1);
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'a wrong password or an unknown email shows the same alert and no cookie; the right one signs in',
    async () => {
      const ada = await addPerson(f.issuer(), { email: 'ada@example.org', name: 'Ada Lovelace', role: 'manager' });
      const { context, page } = await openConsole(f.browser(), f.issuer());
      try {
        const alerts: string[] = [];
        for (const [email, password] of [
          [ada.email, 'not the right password'],
          ['nobody@example.org', PASSWORD],
        ] as const) {
          await signInWithPassword(page, email, password);
          const alert = page.getByRole('alert').filter({ hasText: 'not valid' });
          await alert.waitFor();
          alerts.push(await alert.innerText());
          assert.equal(await sessionCookie(context), undefined);
        }
        assert.equal(alerts[0], alerts[1], 'an unknown email reads like a wrong password');
        await signInWithPassword(page, ada.email, PASSWORD);
        await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        await page.getByText('Ada Lovelace (manager)').waitFor();
        assert.ok(await sessionCookie(context));
        const typed = await page.evaluate(() => [...document.querySelectorAll('input')].map((i) => i.value).join('|'));
        assert.ok(!typed.includes(PASSWORD), 'the password is not left in the page');
      } finally {
        await context.close();
      }
    },
  );

  browserTest('Sign in with SSO is offered only when the issuer has single sign-on', async () => {
    const context = await f.browser().newContext();
    try {
      // This issuer has no OIDC_ISSUER_URL: its answer says so, and no link shows.
      const plain = await context.newPage();
      const answered = plain.waitForResponse((r) => r.url().endsWith('/admin/v1/session/options'));
      await plain.goto(`${f.issuer().url}/console/`);
      assert.deepEqual(await (await answered).json(), { password: true, sso: false });
      await plain.getByLabel('Email').waitFor();
      await plain.waitForTimeout(200);
      assert.equal(await plain.getByRole('link', { name: 'Sign in with SSO' }).count(), 0);
      // An issuer that has it (its answer stood in for here; the flow itself is tested against a real provider in sso.test.ts).
      const page = await context.newPage();
      await page.route('**/admin/v1/session/options', (route) =>
        route.fulfill({ json: { password: true, sso: true } }),
      );
      await page.goto(`${f.issuer().url}/console/`);
      const link = page.getByRole('link', { name: 'Sign in with SSO' });
      await link.waitFor();
      assert.equal(await link.getAttribute('href'), '/admin/v1/sso/start');
      await page.getByLabel('Email').waitFor();
    } finally {
      await context.close();
    }
  });

  browserTest('a refused single sign-on (#sso_error=…) shows an alert and leaves the address', async () => {
    const context = await f.browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${f.issuer().url}/console/#sso_error=unknown`);
      await page.getByRole('alert').filter({ hasText: 'nobody here has your email address' }).waitFor();
      assert.equal(new URL(page.url()).hash, '');
      await page.goto(`${f.issuer().url}/console/#sso_error=%3Cb%3Eodd%3C%2Fb%3E`);
      await page.getByRole('alert').filter({ hasText: 'refused it' }).waitFor();
      assert.equal(await page.locator('main b').count(), 0, 'nothing from the address becomes markup');
    } finally {
      await context.close();
    }
  });
});
