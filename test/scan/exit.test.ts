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
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

describe('the web scanner’s Entry and Exit modes', { skip }, () => {
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

  it('Exit lets a holder out (online and offline) and rejects one who is not inside', async () => {
    const eid = await createEvent(issuer, 'Door Night');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      const entry = page.getByRole('button', { name: 'Entry' });
      const exit = page.getByRole('button', { name: 'Exit' });
      assert.equal(await entry.getAttribute('aria-pressed'), 'true');
      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Admit');

      await exit.click();
      assert.equal(await exit.getAttribute('aria-pressed'), 'true');
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Exit'), /Ada Lovelace/);
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Reject'), /^Reject\s+not inside/);
      const reading = await admin<{ inside: number; exits: number }>(issuer, 'GET', `/events/${eid}/occupancy`);
      assert.deepEqual([reading.inside, reading.exits], [0, 1]);

      // Offline: in at the entry, out at the exit, both decided here and synced later.
      await entry.click();
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, grace!.ticket_token);
      await verdictOf(page, 'Admit');
      await exit.click();
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Exit'), /Decided on this device/);
      assert.equal(await page.getByTestId('queued').textContent(), '2');
      await context.setOffline(false);
      await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
        timeout: 15_000,
      });
      const after = await admin<{ inside: number; entries: number; exits: number }>(
        issuer,
        'GET',
        `/events/${eid}/occupancy`,
      );
      assert.deepEqual([after.inside, after.entries, after.exits], [0, 2, 2]);
    } finally {
      await context.close();
    }
  });
});
