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
  network,
  openPhone,
  queueSynced,
  screenshots,
  startScanIssuer,
  verdictOf,
  type RunningIssuer,
} from './harness.ts';
import { answer, finder, holderButton, searchingLink, typeName } from './finder.ts';

const skip = browserSkipReason() ?? false;

interface LoggedScan {
  tid: string;
  outcome: string;
}

describe('the web scanner’s Find by name without a network', { skip }, () => {
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

  it('finds holders on the phone’s roster, asks, admits, and the upload later agrees', async () => {
    const eid = await createEvent(issuer, 'Power Cut Night');
    const [ada, grace, alan] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
    await admin(issuer, 'POST', `/tickets/${grace!.tid}/revoke`, { reason: 'refunded' });
    const { context, page } = await openPhone(browser, await searchingLink(issuer, eid));
    try {
      await enrolled(page);
      await finder(page).waitFor({ state: 'visible', timeout: 10_000 });
      await context.setOffline(true);
      await network(page, 'Offline');

      await typeName(page, 'hopper');
      const graceButton = holderButton(page, 'Grace Hopper');
      await graceButton.waitFor({ timeout: 10_000 });
      assert.match((await graceButton.textContent()) ?? '', /Would be refused: revoked/);

      await typeName(page, 'lovelace');
      const adaButton = holderButton(page, 'Ada Lovelace');
      await adaButton.waitFor({ timeout: 10_000 });
      assert.match((await page.locator('#find-status').textContent()) ?? '', /kept on this phone/);
      assert.deepEqual(await seriousViolations(page), [], 'axe-core with the roster’s list shown');
      assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');
      await screenshots(page, 'find-by-name-offline', page.locator('#find-results'));

      // Asked first, as online; Admit lets Ada in on this device, and the scan waits for the issuer.
      await adaButton.click();
      assert.match(await answer(page, 'Admit'), /Ada Lovelace · General admission/);
      const admitted = await verdictOf(page, 'Admit');
      assert.match(admitted, /Ada Lovelace/);
      assert.match(admitted, /Decided on this device/);
      assert.equal(await page.getByTestId('queued').textContent(), '1');

      // A short code typed offline is found on the roster too.
      await checkCode(page, alan!.short_code.toLowerCase().replace('-', ' '));
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);

      await context.setOffline(false);
      await queueSynced(page);
      const log = await admin<{ scans: LoggedScan[] }>(issuer, 'GET', `/events/${eid}/scans`);
      const adaScans = log.scans.filter((s) => s.tid === ada!.tid);
      assert.deepEqual(
        adaScans.map((s) => s.outcome),
        ['valid'],
        'the issuer agreed with the admit by name',
      );
      for (const ticket of [ada!, alan!]) {
        assert.equal((await admin<{ status: string }>(issuer, 'GET', `/tickets/${ticket.tid}`)).status, 'checked_in');
      }
    } finally {
      await context.close();
    }
  });

  it('re-enrolled for another event, the phone no longer finds the first event’s holders', async () => {
    const first = await createEvent(issuer, 'First Night');
    await issueTickets(issuer, first, ['Katherine Johnson']);
    const second = await createEvent(issuer, 'Second Night');
    await issueTickets(issuer, second, ['Dorothy Vaughan']);
    const { context, page } = await openPhone(browser, await searchingLink(issuer, first));
    try {
      await enrolled(page);
      await finder(page).waitFor({ state: 'visible', timeout: 10_000 });
      await context.setOffline(true);
      await network(page, 'Offline');
      await typeName(page, 'johnson');
      await holderButton(page, 'Katherine Johnson').waitFor({ timeout: 10_000 });
      await context.setOffline(false);
      await network(page, 'Online');

      await page.goto(await searchingLink(issuer, second));
      const dialog = page.getByRole('dialog', { name: 'Replace this device’s enrolment?' });
      await dialog.getByRole('button', { name: 'Replace enrolment' }).click();
      await page
        .locator('#event')
        .getByText(/Second Night/)
        .waitFor({ timeout: 15_000 });
      await finder(page).waitFor({ state: 'visible', timeout: 10_000 });

      await context.setOffline(true);
      await network(page, 'Offline');
      await typeName(page, 'vaughan');
      await holderButton(page, 'Dorothy Vaughan').waitFor({ timeout: 10_000 });
      await typeName(page, 'johnson');
      await page
        .locator('#find-status')
        .getByText(/No holder’s name holds/)
        .waitFor({ timeout: 10_000 });
      assert.equal(await holderButton(page, 'Katherine Johnson').count(), 0, 'the first event’s roster is gone');
    } finally {
      await context.close();
    }
  });
});
