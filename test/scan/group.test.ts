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
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';
import { searchingLink } from './finder.ts';

const skip = browserSkipReason() ?? false;

describe('the web scanner’s Check in group', { skip }, () => {
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

  it('after an Admit, lists the rest of the order checked; one unchecked stays out', async () => {
    const eid = await createEvent(issuer, 'Family Night');
    const holders = ['Ada Lovelace', 'Byron Lovelace', 'Annabella Milbanke', 'Charles Babbage'];
    const { tickets } = await admin<{ tickets: { tid: string; ticket_token: string }[] }>(
      issuer,
      'POST',
      `/events/${eid}/tickets`,
      {
        tickets: holders.map((holder_name, i) => ({
          holder_name,
          ticket_type: 'General admission',
          ...(i < 3 ? { order_ref: 'ORDER-1815' } : {}),
        })),
      },
    );
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, tickets[0]!.ticket_token);
      await verdictOf(page, 'Admit');
      const offer = page.getByRole('button', { name: 'Check in group (2)' });
      await offer.waitFor({ timeout: 10_000 });
      await offer.click();
      const byron = page.getByRole('checkbox', { name: /Byron Lovelace/ });
      const annabella = page.getByRole('checkbox', { name: /Annabella Milbanke/ });
      assert.deepEqual([await byron.isChecked(), await annabella.isChecked()], [true, true], 'all checked');
      assert.equal(await page.getByRole('checkbox', { name: /Charles Babbage/ }).count(), 0, 'another order');
      await annabella.uncheck();
      assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');
      if (process.env.SCAN_SHOTS) await page.screenshot({ path: `${process.env.SCAN_SHOTS}/group-375.png` });
      await page.getByRole('button', { name: 'Admit checked' }).click();
      const results = page.getByRole('list', { name: 'Group check-in' });
      await results.waitFor({ timeout: 10_000 });
      assert.match((await results.textContent()) ?? '', /Admit · Byron Lovelace/);
      // Each member judged on the phone and sent by the upload, which follows at once while online.
      await queueSynced(page);
      const status = async (tid: string) => (await admin<{ status: string }>(issuer, 'GET', `/tickets/${tid}`)).status;
      assert.deepEqual(await Promise.all(tickets.map((t) => status(t.tid))), [
        'checked_in',
        'checked_in',
        'valid',
        'valid',
      ]);
    } finally {
      await context.close();
    }
  });

  it('offline, from the roster: one member unchecked, and the upload later admits exactly the checked ones', async () => {
    const eid = await createEvent(issuer, 'Family Night Offline');
    const family = await issueTickets(issuer, eid, ['Ada Byron', 'Byron King', 'Annabella King'], {
      orderRef: 'ORDER-1816',
    });
    const [stranger] = await issueTickets(issuer, eid, ['Charles Babbage']);
    const { context, page } = await openPhone(browser, await searchingLink(issuer, eid));
    try {
      await enrolled(page);
      await network(page, 'Online');
      await context.setOffline(true);
      await network(page, 'Offline');
      await checkCode(page, family[0]!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      const offer = page.getByRole('button', { name: 'Check in group (2)' });
      await offer.waitFor({ timeout: 10_000 });
      await offer.click();
      const annabella = page.getByRole('checkbox', { name: /Annabella King/ });
      assert.equal(await page.getByRole('checkbox', { name: /Charles Babbage/ }).count(), 0, 'another order');
      await annabella.uncheck();
      assert.match((await page.locator('#group').textContent()) ?? '', /kept on this phone/);
      assert.deepEqual(await seriousViolations(page), [], 'axe-core with the group listed offline');
      assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');
      await screenshots(page, 'group-offline', page.locator('#group'));
      await page.getByRole('button', { name: 'Admit checked' }).click();
      const results = page.getByRole('list', { name: 'Group check-in' });
      await results.waitFor({ timeout: 10_000 });
      assert.match((await results.textContent()) ?? '', /Admit · Byron King/);
      assert.doesNotMatch((await results.textContent()) ?? '', /Annabella/);
      assert.equal(await page.getByTestId('queued').textContent(), '2', 'the admit and the member, queued');

      await context.setOffline(false);
      await queueSynced(page);
      const status = async (tid: string) => (await admin<{ status: string }>(issuer, 'GET', `/tickets/${tid}`)).status;
      assert.deepEqual(await Promise.all([...family, stranger!].map((t) => status(t.tid))), [
        'checked_in',
        'checked_in',
        'valid',
        'valid',
      ]);
    } finally {
      await context.close();
    }
  });
});
