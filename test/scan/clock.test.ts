import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
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
  verdictMatching,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;
const TEN_MINUTES = 10 * 60_000;

interface LoggedScan {
  tid: string;
  scanned_at: string;
  received_at: string;
}

describe('a phone whose clock runs 10 minutes fast', { skip }, () => {
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

  it('warns, and stamps its scans (online and offline) with the corrected time', async () => {
    const eid = await createEvent(issuer, 'Clock Night');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    const link = await webScannerLink(issuer, eid);
    const { context, page } = await openPhone(browser, link, { clockShiftMs: TEN_MINUTES });
    try {
      await enrolled(page);
      const warning = page.getByRole('alert').filter({ hasText: 'clock' });
      await warning.waitFor({ timeout: 15_000 });
      assert.equal((await warning.textContent())?.trim(), "This phone's clock is 10 minutes off");
      assert.ok(
        Math.abs((await page.evaluate(() => Date.now())) - Date.now() - TEN_MINUTES) < 5000,
        'the page runs fast',
      );

      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Admit');
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictMatching(page, /#2/), /^Admit\s+#2.*Decided on this device/);
      await context.setOffline(false);
      await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
        timeout: 15_000,
      });

      const { scans } = await admin<{ scans: LoggedScan[] }>(issuer, 'GET', `/events/${eid}/scans`);
      assert.equal(scans.length, 2);
      for (const scan of scans) {
        const skew = Date.parse(scan.scanned_at) - Date.parse(scan.received_at);
        // Stamped by the phone's own clock it would read 10 minutes ahead of its arrival.
        assert.ok(Math.abs(skew) < 60_000, `${scan.tid} stamped ${scan.scanned_at}, received ${scan.received_at}`);
      }
    } finally {
      await context.close();
    }
  });

  it('a phone whose clock is right shows no warning', async () => {
    const eid = await createEvent(issuer, 'Right Clock Night');
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.getByTestId('queued').waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.textContent !== 'never');
      assert.equal(await page.locator('#clock-warning').isHidden(), true);
    } finally {
      await context.close();
    }
  });
});
