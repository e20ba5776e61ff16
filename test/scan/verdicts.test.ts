import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
  verdictMatching,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

/** The verdict area's background colour, as the browser paints it. */
const verdictColour = (page: Page) =>
  page.getByTestId('verdict').evaluate((element) => getComputedStyle(element).backgroundColor);
const headerColour = (page: Page) =>
  page.locator('header').evaluate((element) => getComputedStyle(element).backgroundColor);

describe('the web scanner’s verdicts at the door', { skip }, () => {
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

  it('tells two admits apart by name and count, says where a used ticket went in, and clears to Ready', async () => {
    const eid = await createEvent(issuer, 'Count Night');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid, 'north'));
    try {
      await enrolled(page);
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /^Admit\s+#1\s+Ada Lovelace · General admission/);
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictMatching(page, /#2/), /^Admit\s+#2\s+Grace Hopper/);

      // Online, the issuer says when; this device let the holder in, at its gate.
      await checkCode(page, ada!.ticket_token);
      const used = await verdictOf(page, 'Reject');
      assert.match(used, /^Reject\s+already used at \d{1,2}:\d{2}(\s?[AP]M)? at gate north/);
      assert.match(used, /Checked by the issuer/);

      const shown = Date.now();
      const ready = await verdictOf(page, 'Ready', 8000);
      const after = Date.now() - shown;
      assert.ok(after >= 4000 && after <= 7500, `the verdict cleared after ${after} ms, not about 5 s`);
      assert.doesNotMatch(ready, /Ada|Grace|already used/);
      assert.equal(await page.getByTestId('verdict').getAttribute('role'), 'status');
    } finally {
      await context.close();
    }
  });

  it('names the holder and type of a ticket not admitted at this gate, and the gate to send them to', async () => {
    const eid = await createEvent(issuer, 'Two Gates');
    await admin(issuer, 'PUT', `/events/${eid}/gates/north`, { name: 'North', admits: ['General admission'] });
    await admin(issuer, 'PUT', `/events/${eid}/gates/stage`, { name: 'Stage door', admits: ['backstage'] });
    const { tickets } = await admin<{ tickets: { ticket_token: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Hedy Lamarr', ticket_type: 'Backstage' }],
    });
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid, 'north'));
    try {
      await enrolled(page);
      await checkCode(page, tickets[0]!.ticket_token);
      const text = await verdictOf(page, 'Reject');
      assert.match(text, /^Reject\s+not admitted at this gate/);
      assert.match(text, /Hedy Lamarr · Backstage/, 'the issuer’s refusal names the holder');
      assert.match(text, /Not for gate north: send the holder to gate stage\./, 'gates by id, not by name');
      assert.deepEqual(await seriousViolations(page), [], 'a gate refusal');
      assert.ok(await fitsWidth(page));
    } finally {
      await context.close();
    }
  });

  it('shows Exit mode unmistakably, and a second exit as Already out in amber, not a red Reject', async () => {
    const eid = await createEvent(issuer, 'Exit Night');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      const label = page.locator('header').getByText('EXIT', { exact: true });
      assert.equal(await label.isVisible(), false, 'no EXIT label at the entry');
      const entryHeader = await headerColour(page);
      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Admit');
      const admitColour = await verdictColour(page);

      await page.getByRole('button', { name: 'Exit' }).click();
      await label.waitFor();
      assert.notEqual(await headerColour(page), entryHeader, 'the header changes colour in Exit mode');
      assert.match(await verdictOf(page, 'Ready'), /Exit/, 'the verdict area says Exit mode at once');
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Exit'), /Ada Lovelace/);
      const exitColour = await verdictColour(page);
      assert.notEqual(exitColour, admitColour);

      await checkCode(page, ada!.ticket_token);
      const again = await verdictOf(page, 'Already out');
      assert.match(again, /Ada Lovelace/);
      assert.doesNotMatch(again, /Reject/);
      assert.equal(await verdictColour(page), 'rgb(242, 178, 51)', 'amber');
      assert.deepEqual(await seriousViolations(page), [], 'Exit mode with Already out');
      assert.ok(await fitsWidth(page));

      await page.getByRole('button', { name: 'Entry' }).click();
      await label.waitFor({ state: 'hidden' });
      assert.equal(await headerColour(page), entryHeader);
    } finally {
      await context.close();
    }
  });
});
