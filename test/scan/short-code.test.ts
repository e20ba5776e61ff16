import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
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

const skip = browserSkipReason() ?? false;

/** A short code as someone types it off the paper: lower case, a space for the dash. */
const typedLoosely = (code: string) => code.toLowerCase().replace('-', ' ');

describe('the web scanner’s Ticket code takes a short code', { skip }, () => {
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

  it('online through the issuer, offline by the codes’ digests; an unknown code is not valid', async () => {
    const eid = await createEvent(issuer, 'Printed Codes Night');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    // A key without allow_search: offline it knows the codes by their digests, not the names.
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid), { height: 667 });
    try {
      await enrolled(page);
      await network(page, 'Online');
      await checkCode(page, typedLoosely(ada!.short_code));
      const online = await verdictOf(page, 'Admit');
      assert.match(online, /Ada Lovelace · General admission/);
      assert.match(online, /Checked by the issuer/);
      const box = await page.getByTestId('verdict').boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= 667, 'the verdict whole on a 375×667 screen');
      assert.deepEqual(await seriousViolations(page), []);
      await screenshots(page, 'short-code-verdict');

      await checkCode(page, ada!.short_code);
      assert.match(await verdictOf(page, 'Reject'), /already used/);
      await checkCode(page, '00000-00000');
      assert.match(await verdictOf(page, 'Reject'), /^Reject\s*not valid/);

      await context.setOffline(true);
      await network(page, 'Offline');
      await checkCode(page, ` ${grace!.short_code.replace('-', '')} `);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      await checkCode(page, '00000-00000');
      assert.match(await verdictOf(page, 'Reject'), /^Reject\s*not valid/);
      assert.equal(
        await page.getByTestId('queued').textContent(),
        '1',
        'the admit waits; an unknown code queues nothing',
      );

      await context.setOffline(false);
      await queueSynced(page);
      const ticket = await admin<{ status: string }>(issuer, 'GET', `/tickets/${grace!.tid}`);
      assert.equal(ticket.status, 'checked_in', 'the upload checked the code’s ticket in');
    } finally {
      await context.close();
    }
  });
});
