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
} from './harness.ts';

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
      await page.getByLabel('Admin token').waitFor();
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
});
