import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { browserSkipReason, browserTest, consoleFixture } from './harness.ts';

browserSkipReason();

describe('the API reference page in Chromium', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  // The fixture's BASE_URL (http://127.0.0.1) names no port: the page is opened at another address.
  browserTest('"Try it out" calls the issuer at the address the page was opened at, not BASE_URL', async () => {
    const context = await f.browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${f.issuer().url}/docs/`);
      const operation = page.locator('.opblock').filter({ hasText: '/.well-known/ticket-issuer.json' });
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const answered = page.waitForResponse((res) => res.url().endsWith('/.well-known/ticket-issuer.json'));
      await operation.getByRole('button', { name: 'Execute' }).click();
      const response = await answered;
      assert.equal(response.url(), `${f.issuer().url}/.well-known/ticket-issuer.json`);
      assert.equal(response.status(), 200);
      await operation.locator('.responses-table .response-col_status').filter({ hasText: '200' }).first().waitFor();
    } finally {
      await context.close();
    }
  });
});
