import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  browserSkipReason,
  createEvent,
  enrolled,
  launchBrowser,
  openPhone,
  startScanIssuer,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

/** Counts the page's calls of navigator.storage.persist() (the browser's own answer still given). */
const COUNT_PERSIST = `(() => {
  const persist = StorageManager.prototype.persist;
  window.persistAsked = 0;
  StorageManager.prototype.persist = function () {
    window.persistAsked += 1;
    return persist.call(this);
  };
})()`;

describe('the web scanner asks the browser to keep its storage', { skip }, () => {
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

  it('asks for persistent storage once enrolled, and again when an enrolled device opens', async () => {
    const eid = await createEvent(issuer, 'Kept Fest');
    const link = await webScannerLink(issuer, eid);
    const { context, page } = await openPhone(browser, `${new URL(link).origin}/scan/`);
    try {
      await context.addInitScript(COUNT_PERSIST);
      await page.reload();
      await page.getByLabel('Setup code').waitFor();
      assert.equal(
        await page.evaluate(() => (window as unknown as { persistAsked: number }).persistAsked),
        0,
        'nothing to keep yet',
      );

      await page.goto(link);
      await enrolled(page);
      await page.waitForFunction(() => (window as unknown as { persistAsked: number }).persistAsked > 0);

      await page.reload();
      await enrolled(page);
      const asked = await page.evaluate(async () => ({
        calls: (window as unknown as { persistAsked: number }).persistAsked,
        persisted: await navigator.storage.persisted(),
      }));
      // Once the browser granted it there is nothing more to ask; until then, each opening asks.
      assert.ok(asked.persisted || asked.calls > 0, JSON.stringify(asked));
    } finally {
      await context.close();
    }
  });
});
