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

/** The changes feed's address: cut, the device cannot complete a sync. */
const FEED = '**/api/v1/events/*/changes**';

describe('a web scanner that has never synced', { skip }, () => {
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

  it('says on each offline verdict that it knows no revocation nor earlier entry, and stops once it synced', async () => {
    const eid = await createEvent(issuer, 'First Sync Night');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').waitFor();
      // Enrolment gets through; the first sync after it does not.
      await context.route(FEED, (route) => route.abort());
      await page.goto(await webScannerLink(issuer, eid));
      await enrolled(page);
      await page.getByText('Offline', { exact: true }).waitFor();
      assert.equal(await page.getByTestId('last-sync').textContent(), 'never');
      await admin(issuer, 'POST', `/tickets/${ada!.tid}/revoke`, { reason: 'refunded' });

      await checkCode(page, ada!.ticket_token);
      const verdict = await verdictOf(page, 'Admit');
      assert.match(verdict, /Decided on this device/);
      const notice = page.getByTestId('verdict').getByTestId('never-synced');
      assert.match((await notice.textContent()) ?? '', /not synced yet.*revoked.*already used/i);
      assert.deepEqual(await seriousViolations(page), [], 'an offline verdict with the notice');
      assert.ok(await fitsWidth(page));

      // Once a sync gets through, offline verdicts carry no notice (and know the revocation).
      await context.unroute(FEED);
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, grace!.ticket_token);
      // The second admit (#2), not the first one still on screen.
      await page.getByTestId('verdict').filter({ hasText: /#2/ }).waitFor({ timeout: 10_000 });
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      assert.equal(await page.getByTestId('never-synced').count(), 0);
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Reject'), /^Reject\s+revoked/);
      assert.equal(await page.getByTestId('never-synced').count(), 0);
    } finally {
      await context.close();
    }
  });

  it('shows no notice on a verdict the issuer gave', async () => {
    const eid = await createEvent(issuer, 'Online Night');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Checked by the issuer/);
      assert.equal(await page.getByTestId('never-synced').count(), 0);
    } finally {
      await context.close();
    }
  });
});
