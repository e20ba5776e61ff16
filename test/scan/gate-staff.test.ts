import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  admin,
  browserSkipReason,
  createEvent,
  enrolled,
  issueTickets,
  launchBrowser,
  openPhone,
  startScanIssuer,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

/** A barcode gun: it types into the focused field, then presses Enter. */
async function gun(page: Page, code: string): Promise<void> {
  await page.keyboard.type(code, { delay: 0 });
  await page.keyboard.press('Enter');
}

/** The verdict's text once it starts with `prefix` ("Admit #2"). */
async function verdictStarting(page: Page, prefix: string): Promise<string> {
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="verdict"]')?.textContent?.trim().startsWith(expected),
    prefix,
    { timeout: 10_000 },
  );
  return ((await page.getByTestId('verdict').textContent()) ?? '').trim();
}

/** The verdict's box against the window: whole on screen or not. */
async function verdictOnScreen(page: Page): Promise<{ top: number; bottom: number; height: number }> {
  return page.evaluate(() => {
    const box = document.querySelector('[data-testid="verdict"]')!.getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, height: window.innerHeight };
  });
}

describe('the web scanner at the gate', { skip }, () => {
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

  it('a barcode gun on a 375×667 phone leaves the whole verdict on screen, attention text and all', async () => {
    const eid = await createEvent(issuer, 'Barcode Gun Night');
    await admin(issuer, 'PUT', `/events/${eid}/gates/main`, { name: 'Main entrance', admits: null });
    const tickets = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
    const text = 'Wheelchair user: open the side gate and walk them to the lift beside the cloakroom';
    await admin(issuer, 'PATCH', `/tickets/${tickets[1]!.tid}`, { attention: true, checkin_text: text });
    const link = await webScannerLink(issuer, eid, 'main');
    const { context, page } = await openPhone(browser, link, { height: 667 });
    try {
      await enrolled(page);
      assert.match((await page.locator('#event').textContent()) ?? '', /Barcode Gun Night · gate main$/);
      const field = page.getByLabel('Ticket code');
      await field.focus();
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      for (const [i, ticket] of tickets.slice(0, 2).entries()) {
        await gun(page, ticket.ticket_token);
        await verdictStarting(page, `Admit #${i + 1}`);
        const box = await verdictOnScreen(page);
        assert.ok(box.top >= 0 && box.bottom <= box.height, `the verdict whole on screen: ${JSON.stringify(box)}`);
        assert.equal(await field.evaluate((el) => el === document.activeElement), true, 'the gun types on');
      }
      assert.match((await page.getByTestId('verdict').textContent()) ?? '', /Attention/);
      if (process.env.SCAN_SHOTS) await page.screenshot({ path: `${process.env.SCAN_SHOTS}/gun-375x667.png` });

      // "Admit #N" goes on after a reload.
      await page.reload();
      await enrolled(page);
      await page.getByLabel('Ticket code').focus();
      await gun(page, tickets[2]!.ticket_token);
      assert.match(await verdictStarting(page, 'Admit'), /^Admit #3 Alan Turing/);
    } finally {
      await context.close();
    }
  });
});
