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

interface LoggedScan {
  tid: string;
  replay: boolean;
  outcome: string;
  admitted_offline: boolean | null;
  scanner_id: string;
  scanner_name: string | null;
}

describe('the web scanner without a network', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  let eid: string;

  before(async () => {
    issuer = await startScanIssuer();
    browser = await launchBrowser();
    eid = await createEvent(issuer, 'Riverside Open Air');
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('admits online with the holder’s name, and rejects the same ticket again as already used', async () => {
    const [ticket] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, ticket!.ticket_token);
      const admit = await verdictOf(page, 'Admit');
      assert.match(admit, /Ada Lovelace/);
      assert.match(admit, /General admission/);
      await checkCode(page, ticket!.ticket_token);
      assert.match(await verdictOf(page, 'Reject'), /^Reject\s+already used at \d/);
      assert.equal(await page.getByTestId('verdict').getAttribute('role'), 'status');
    } finally {
      await context.close();
    }
  });

  it('admits offline, keeps the queue across a reload, and syncs by itself once online', async () => {
    const [ticket] = await issueTickets(issuer, eid, ['Katherine Johnson']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.getByText('Online', { exact: true }).waitFor();
      // The service worker holds the app's files once it is active.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });

      await context.setOffline(true);
      // Once the page knows (else a request cut short on its way may count as a plain online scan).
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, ticket!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      assert.equal(await page.getByTestId('queued').textContent(), '1');

      await page.reload();
      await enrolled(page);
      assert.equal(await page.getByTestId('queued').textContent(), '1', 'the queue survived the reload');

      const back = Date.now();
      await context.setOffline(false);
      await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
        timeout: 10_000,
      });
      assert.ok(Date.now() - back <= 10_000);
      assert.notEqual(await page.getByTestId('last-sync').textContent(), 'never');

      const { scans } = await admin<{ scans: LoggedScan[] }>(issuer, 'GET', `/events/${eid}/scans?limit=1000`);
      // A request cut short as the network came back is sent again: the issuer logs that as a replay.
      const logged = scans.filter((scan) => scan.tid === ticket!.tid && !scan.replay);
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.equal(logged[0]!.outcome, 'valid');
      assert.equal(logged[0]!.admitted_offline, true);
      const { scanners } = await admin<{ scanners: { scanner_id: string; name: string | null }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scanners`,
      );
      const enrolledAs = scanners.find((scanner) => scanner.scanner_id === logged[0]!.scanner_id);
      assert.equal(logged[0]!.scanner_name, enrolledAs?.name, 'the scan log names the scanner as enrolled');
    } finally {
      await context.close();
    }
  });

  it('rejects offline a ticket revoked while the phone was online, after one sync', async () => {
    const [ticket] = await issueTickets(issuer, eid, ['Dorothy Vaughan']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      // The sync that follows enrolment, done before the revocation.
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
      await page.getByRole('button', { name: 'Sync now' }).and(page.locator(':enabled')).waitFor();
      await admin(issuer, 'POST', `/tickets/${ticket!.tid}/revoke`, { reason: 'refunded' });
      const lastSync = page.getByTestId('last-sync');
      const before = await lastSync.getAttribute('datetime');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.waitForFunction(
        (was) => {
          const at = document.querySelector('[data-testid="last-sync"]')?.getAttribute('datetime');
          return at !== null && at !== undefined && at !== was;
        },
        before,
        { timeout: 10_000 },
      );

      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      const started = Date.now();
      await checkCode(page, ticket!.ticket_token);
      const text = await verdictOf(page, 'Reject');
      assert.match(text, /^Reject\s+revoked/);
      assert.match(text, /Decided on this device/);
      assert.ok(Date.now() - started < 3000, 'an offline verdict within 3 s');
    } finally {
      await context.close();
    }
  });
});
