import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { fitsWidth } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  checkCode,
  createEvent,
  enrolled,
  launchBrowser,
  openPhone,
  startScanIssuer,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

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
});
