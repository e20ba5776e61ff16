import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { browserSkipReason, browserTest, consoleFixture, openConsole, signIn, signInWithPassword } from './harness.ts';
import { addPerson, PASSWORD, screenshot, type TestPerson } from './people-harness.ts';

browserSkipReason();

/** A day `days` from now as a date field takes it (the browser and the test share a time zone). */
function dayFromNow(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

describe('console in Chromium: API tokens', () => {
  const f = consoleFixture();
  let mia: TestPerson;
  let vic: TestPerson;
  before(async () => {
    await f.open();
    if (browserSkipReason() !== undefined) return;
    mia = await addPerson(f.issuer(), { email: 'mia@example.org', name: 'Mia Manager', role: 'manager' });
    vic = await addPerson(f.issuer(), { email: 'vic@example.org', name: 'Vic Viewer', role: 'viewer' });
  });
  after(async () => f.close());

  /** The admin API's answer to a script holding `token`. */
  const statusWith = async (token: string) =>
    (await fetch(`${f.issuer().url}/admin/v1/events`, { headers: { authorization: `Bearer ${token}` } })).status;

  /** The API tokens page through the nav, as a person finds it. */
  async function openTokens(page: Page): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
  }

  browserTest(
    'a person makes a token shown once with Copy token, lists it with its dates, and deletes it after a confirmation; Cancel keeps it',
    async () => {
      const { context, page: p } = await openConsole(f.browser(), f.issuer());
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.issuer().url });
      try {
        await signInWithPassword(p, mia.email, PASSWORD);
        await openTokens(p);
        const list = p.getByRole('list', { name: 'Your API tokens' });
        await list.getByText('No API tokens yet.').waitFor();

        // A name of spaces only: the issuer's refusal is said, in words.
        await p.getByLabel('Token name').fill('   ');
        await p.getByRole('button', { name: 'Make token' }).click();
        await p.getByRole('alert').filter({ hasText: 'No token made: The name is missing' }).waitFor();

        await p.getByLabel('Token name').fill('nightly export');
        await p.getByLabel('Expires (optional)').fill(dayFromNow(30));
        await p.getByRole('button', { name: 'Make token' }).click();
        const secret = p.getByRole('textbox', { name: 'New API token' });
        const token = await secret.inputValue();
        assert.match(token, /^iat_[A-Za-z0-9_-]{43}$/);
        await p.getByText('Copy the token “nightly export” now: you will not see it again.').waitFor();
        await p.getByRole('button', { name: 'Copy token' }).click();
        await p.getByText('Copied', { exact: true }).waitFor();
        assert.equal(await p.evaluate(() => navigator.clipboard.readText()), token, 'the token is on the clipboard');
        assert.deepEqual(await seriousViolations(p), [], 'the API tokens page with a new token');
        await screenshot(p, 'console-api-tokens');

        assert.equal(await statusWith(token), 200, 'the token acts as its person');
        const row = list.getByRole('listitem').filter({ hasText: 'nightly export' });
        await row.getByText(/^Created .+ · Expires .+\(in (29|30) days\)$/).waitFor();
        await row.getByText('Last used never').waitFor();

        // Read again, the page shows what the issuer keeps: no secret, and the token's use.
        await p.reload();
        await p.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
        await row.getByText('Last used just now').waitFor();
        assert.equal(await p.getByRole('textbox', { name: 'New API token' }).count(), 0);
        assert.ok(!(await p.content()).includes(token), 'the secret is nowhere on the page');

        // Delete asks first; Cancel (and Escape) keep the token.
        const remove = row.getByRole('button', { name: 'Delete token nightly export' });
        await remove.click();
        const ask = p.getByRole('alertdialog', { name: 'Delete the API token “nightly export”?' });
        await ask.getByText('Scripts that use it are refused from their next request').waitFor();
        assert.deepEqual(await seriousViolations(p), [], 'the confirmation');
        await screenshot(p, 'console-api-tokens-delete');
        await ask.getByRole('button', { name: 'Cancel' }).click();
        await ask.waitFor({ state: 'detached' });
        assert.ok(await remove.evaluate((button) => button === document.activeElement), 'the focus is back');
        await remove.click();
        await ask.waitFor();
        await p.keyboard.press('Escape');
        await ask.waitFor({ state: 'detached' });
        assert.equal(await statusWith(token), 200, 'still working after Cancel and Escape');
        await row.waitFor();

        await remove.click();
        await ask.getByRole('button', { name: 'Delete token' }).click();
        await p.getByRole('status').filter({ hasText: 'The token “nightly export” is deleted.' }).waitFor();
        await list.getByText('No API tokens yet.').waitFor();
        assert.equal(await statusWith(token), 401, 'refused at once');
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'an owner’s list holds everyone’s tokens with their person; a token deleted meanwhile is a refusal said in the row; the page fits 375 px',
    async () => {
      const person = await openConsole(f.browser(), f.issuer(), { width: 375 });
      const owner = await openConsole(f.browser(), f.issuer());
      try {
        const v = person.page;
        await signInWithPassword(v, vic.email, PASSWORD);
        await openTokens(v);
        await v.getByLabel('Token name').fill('viewer report');
        await v.getByRole('button', { name: 'Make token' }).click();
        const token = await v.getByRole('textbox', { name: 'New API token' }).inputValue();
        await v
          .getByRole('list', { name: 'Your API tokens' })
          .getByRole('listitem')
          .filter({ hasText: 'viewer report' })
          .getByText('Expires never (until deleted)')
          .waitFor();
        assert.deepEqual(await seriousViolations(v), [], 'the API tokens page at 375 px');
        assert.ok(await fitsWidth(v), 'the API tokens page fits 375 px');
        await screenshot(v, 'console-api-tokens-375');

        // The admin token: the built-in owner sees everyone's, may delete, and is told it makes none.
        const o = owner.page;
        await signIn(o);
        await openTokens(o);
        await o.getByText('The admin token is no person and holds no API tokens').waitFor();
        assert.equal(await o.getByLabel('Token name').count(), 0, 'no form for the admin token');
        const row = o
          .getByRole('list', { name: 'Everyone’s API tokens' })
          .getByRole('listitem')
          .filter({ hasText: 'viewer report' });
        await row.getByText('Person: Vic Viewer').waitFor();
        assert.deepEqual(await seriousViolations(o), [], 'an owner’s list');
        await screenshot(o, 'console-api-tokens-owner');

        // Vic deletes it first; the owner's Delete is refused, and the row says why.
        const vicRow = v.getByRole('listitem').filter({ hasText: 'viewer report' });
        await vicRow.getByRole('button', { name: 'Delete token viewer report' }).click();
        await v.getByRole('alertdialog').getByRole('button', { name: 'Delete token' }).click();
        await vicRow.waitFor({ state: 'detached' });
        await row.getByRole('button', { name: 'Delete token viewer report' }).click();
        await o.getByRole('alertdialog').getByRole('button', { name: 'Delete token' }).click();
        await row.getByRole('alert').filter({ hasText: 'Not deleted: no personal API token' }).waitFor();
        assert.equal(await statusWith(token), 401);
      } finally {
        await person.context.close();
        await owner.context.close();
      }
    },
  );
});
