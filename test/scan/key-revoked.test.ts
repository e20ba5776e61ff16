import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  checkCode,
  createEvent,
  enrolled,
  issueTickets,
  launchBrowser,
  openPhone,
  startScanIssuer,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

describe('a web scanner whose key was revoked', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  before(async () => {
    issuer = await startScanIssuer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('shows no green Online nor Ready, says in the verdict area to enrol again, and then offers Replace first', async () => {
    const eid = await createEvent(issuer, 'Revoked Night');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      const header = page.locator('header');
      await header.getByText('Online', { exact: true }).waitFor();
      const { scanners } = await admin<{ scanners: { api_key_id: string }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scanners`,
      );
      await admin(issuer, 'POST', `/api-keys/${scanners[0]!.api_key_id}/revoke`);

      await page.getByRole('button', { name: 'Sync now' }).click();
      const verdict = await verdictOf(page, 'Enrol again');
      assert.match(verdict, /key was revoked or has expired/);
      assert.match(verdict, /new setup code/);
      assert.equal(await header.getByText('Online', { exact: true }).count(), 0, 'no Online in the header');
      await header.getByText('Key revoked', { exact: true }).waitFor();
      assert.equal(await page.getByText('Ready', { exact: true }).count(), 0, 'not Ready to scan');
      assert.deepEqual(await seriousViolations(page), [], 'the revoked state');
      assert.ok(await fitsWidth(page));

      // A ticket is not judged by a device the issuer no longer accepts, online or not.
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Enrol again'), /revoked/);
      assert.equal(
        await page
          .getByRole('alert')
          .filter({ hasText: /401|issuer answered/ })
          .count(),
        0,
      );

      // A new setup link: the dialog's first answer is to replace.
      await page.goto(await webScannerLink(issuer, eid));
      const dialog = page.getByRole('dialog', { name: 'Replace this device’s enrolment?' });
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /no longer accepted/);
      const focused = await page.evaluate(() => document.activeElement?.textContent);
      assert.equal(focused, 'Replace enrolment');
      await page.keyboard.press('Enter');
      await header.getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
      await verdictOf(page, 'Ready');
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Ada Lovelace/);
    } finally {
      await context.close();
    }
  });

  it('still offers Keep first to a device whose key works', async () => {
    const eid = await createEvent(issuer, 'Working Night');
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.goto(await webScannerLink(issuer, eid));
      await page.getByRole('dialog', { name: 'Replace this device’s enrolment?' }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Keep current enrolment');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      await page.getByText('Working Night').first().waitFor();
    } finally {
      await context.close();
    }
  });
});
