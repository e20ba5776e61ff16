import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  checkCode,
  createEvent,
  enrolled,
  launchBrowser,
  openPhone,
  startScanIssuer,
  verdictMatching,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

const attentionOf = (page: Page) => page.getByTestId('verdict').getAttribute('data-attention');

describe('the web scanner applies the entry rules offline after one sync', { skip }, () => {
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

  it('says not valid now, entry limit reached and too soon with their details, and shows a holder’s notes', async () => {
    const eid = await createEvent(issuer, 'Lakeside Weekender');
    // The event's days are UTC days from midnight: a pass for the day after today is not valid now.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const declare = (type: string, rules: Record<string, unknown>) =>
      admin(issuer, 'PUT', `/events/${eid}/ticket-types/${encodeURIComponent(type)}`, rules);
    await declare('Sunday pass', { valid_days: [tomorrow] });
    await declare('Wristband', { reentry: 'any', max_entries: 1 });
    await declare('Spa', { reentry: 'any', min_minutes_between_entries: 45, checkin_text: 'Towel at the desk' });
    const holders = [
      { holder_name: 'Ada Lovelace', ticket_type: 'Sunday pass' },
      { holder_name: 'Grace Hopper', ticket_type: 'Wristband' },
      { holder_name: 'Mary Somerville', ticket_type: 'Spa' },
      {
        holder_name: 'Hedy Lamarr',
        ticket_type: 'General admission',
        attention: true,
        checkin_text: 'Wheelchair: use the ramp',
      },
    ];
    const { tickets } = await admin<{ tickets: { ticket_token: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: holders,
    });
    const [sunday, wristband, spa, noted] = tickets.map((ticket) => ticket.ticket_token);

    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      // The sync after enrolment read the feed and the rules; the app's files are cached.
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();

      await checkCode(page, sunday!);
      const notValid = await verdictMatching(page, /not valid now/);
      assert.match(notValid, /^Reject\s+not valid now/);
      assert.match(notValid, /Valid on .+ only \(today is .+\)\./);
      assert.match(notValid, /Decided on this device/);

      await checkCode(page, wristband!);
      assert.match(await verdictMatching(page, /#1/), /^Admit\s+#1\s+Wristband/);
      await checkCode(page, wristband!);
      assert.match(await verdictMatching(page, /entry limit/), /^Reject\s+entry limit reached.*Entries used: 1 of 1\./);

      await checkCode(page, spa!);
      const spaIn = await verdictMatching(page, /#2/);
      assert.match(spaIn, /^Admit\s+#2\s+Spa\s*Towel at the desk/);
      assert.equal(await attentionOf(page), null, 'a text alone asks for no attention');
      await checkCode(page, spa!);
      const soon = await verdictMatching(page, /too soon/);
      // The day is named too when the next entry falls after midnight (a run late in the evening).
      assert.match(soon, /^Reject\s+too soon.*Next entry from (?:[A-Z][a-z]{2} \d{1,2} )?\d{1,2}:\d{2}/);

      await checkCode(page, noted!);
      const flagged = await verdictMatching(page, /Wheelchair/);
      assert.match(flagged, /^Admit\s+#3.*Attention\s*Wheelchair: use the ramp/);
      assert.equal(await attentionOf(page), 'true');
      // Large enough to read at arm's length, and readable on the verdict's colour.
      const size = await page
        .getByTestId('verdict')
        .locator('.checkin-text')
        .evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
      assert.ok(size >= 20, `${size}px`);
      assert.deepEqual(await seriousViolations(page), []);

      await checkCode(page, noted!);
      const again = await verdictMatching(page, /already used/);
      assert.match(again, /Wheelchair: use the ramp/);
      assert.equal(await attentionOf(page), 'true', 'every verdict of the ticket says so');
    } finally {
      await context.close();
    }
  });

  it('online, the issuer’s refusals read the same, with the holder’s name', async () => {
    const eid = await createEvent(issuer, 'Harbour Nights');
    await admin(issuer, 'PUT', `/events/${eid}/ticket-types/Wristband`, {
      reentry: 'any',
      max_entries: 1,
      attention: true,
      checkin_text: 'Over 18 only',
    });
    const { tickets } = await admin<{ tickets: { ticket_token: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Rosalind Franklin', ticket_type: 'Wristband' }],
    });
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, tickets[0]!.ticket_token);
      const admitted = await verdictMatching(page, /#1/);
      assert.match(admitted, /^Admit\s+#1\s+Rosalind Franklin · Wristband\s*Attention\s*Over 18 only/);
      assert.equal(await attentionOf(page), 'true');
      await checkCode(page, tickets[0]!.ticket_token);
      const limit = await verdictMatching(page, /entry limit/);
      assert.match(limit, /^Reject\s+entry limit reached\s*Rosalind Franklin · Wristband/);
      assert.match(limit, /Entries used: 1 of 1\./);
      assert.match(limit, /Checked by the issuer/);
      assert.equal(await attentionOf(page), 'true');
      await page.getByText('Online', { exact: true }).waitFor();
    } finally {
      await context.close();
    }
  });
});
