import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { admin, browserSkipReason, browserTest, consoleFixture, openConsole, signIn } from './harness.ts';
import { addPerson, inviteTokenOf, PASSWORD, screenshot } from './people-harness.ts';

browserSkipReason();

describe('console in Chromium: where each invitation stands, and a new link only after asking', () => {
  const f = consoleFixture();
  let patLink = '';
  let quinnLink = '';
  before(async () => {
    await f.open();
    if (browserSkipReason() !== undefined) return;
    await addPerson(f.issuer(), { email: 'ann@example.org', name: 'Ann Accepted', role: 'manager' });
    const invite = (email: string, name: string) =>
      admin<{ invite_url: string }>(f.issuer(), 'POST', '/users', { email, name, role: 'viewer' });
    patLink = (await invite('pat@example.org', 'Pat Pending')).invite_url;
    quinnLink = (await invite('quinn@example.org', 'Quinn Pending')).invite_url;
  });
  after(async () => f.close());

  /** Sets a password through an invitation link, as its person would: the issuer's answer status. */
  const accept = async (inviteUrl: string, password = PASSWORD) =>
    (
      await fetch(`${f.issuer().url}/admin/v1/invitations/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ invite_token: inviteTokenOf(inviteUrl), password }),
      })
    ).status;

  const rowOf = (page: Page, name: string) =>
    page.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: name });

  browserTest(
    'the People page says pending or accepted; New invitation link asks first, Cancel and Escape keep the old link, confirming ends it',
    async () => {
      const { context, page: p } = await openConsole(f.browser(), f.issuer());
      try {
        await signIn(p);
        await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
        await rowOf(p, 'Ann Accepted').getByText('invitation accepted', { exact: true }).waitFor();
        const pat = rowOf(p, 'Pat Pending');
        await pat.getByText('invitation pending', { exact: true }).waitFor();
        await rowOf(p, 'Quinn Pending').getByText('invitation pending', { exact: true }).waitFor();

        // Asked first; Cancel and Escape make nothing, and the link Pat holds still works.
        const newLink = pat.getByRole('button', { name: 'New invitation link for Pat Pending' });
        await newLink.click();
        const ask = p.getByRole('alertdialog', { name: 'Make a new invitation link for Pat Pending?' });
        await ask.getByText('The link made earlier for Pat Pending stops working at once').waitFor();
        assert.deepEqual(await seriousViolations(p), [], 'the People page asking');
        await screenshot(p, 'console-people-new-link');
        await ask.getByRole('button', { name: 'Cancel' }).click();
        await ask.waitFor({ state: 'detached' });
        assert.ok(await newLink.evaluate((button) => button === document.activeElement), 'the focus is back');
        await newLink.click();
        await ask.waitFor();
        await p.keyboard.press('Escape');
        await ask.waitFor({ state: 'detached' });
        assert.equal(await pat.getByRole('textbox', { name: 'Invitation link' }).count(), 0, 'no new link');
        assert.equal(await accept(patLink), 200, 'the old link was kept');
        await p.reload();
        await pat.getByText('invitation accepted', { exact: true }).waitFor();

        // Pat has a password now: the question says what a new link would let its holder do.
        await newLink.click();
        await ask.getByText('Pat Pending has set a password. Whoever opens the new link can set another').waitFor();
        await ask.getByRole('button', { name: 'Make a new link' }).click();
        await pat.getByRole('textbox', { name: 'Invitation link' }).waitFor();
        await pat.getByText('invitation pending', { exact: true }).waitFor();

        // Confirmed for Quinn: the old link is dead, the new one works.
        const quinn = rowOf(p, 'Quinn Pending');
        await quinn.getByRole('button', { name: 'New invitation link for Quinn Pending' }).click();
        await p
          .getByRole('alertdialog', { name: 'Make a new invitation link for Quinn Pending?' })
          .getByRole('button', { name: 'Make a new link' })
          .click();
        const fresh = await quinn.getByRole('textbox', { name: 'Invitation link' }).inputValue();
        assert.notEqual(inviteTokenOf(fresh), inviteTokenOf(quinnLink));
        assert.deepEqual(await seriousViolations(p), [], 'the People page with a new link');
        await screenshot(p, 'console-people-invitations');
        assert.equal(await accept(quinnLink), 400, 'the old link ended');
        assert.equal(await accept(fresh), 200, 'the new link sets the password');
        await p.reload();
        await quinn.getByText('invitation accepted', { exact: true }).waitFor();
      } finally {
        await context.close();
      }
    },
  );
});
