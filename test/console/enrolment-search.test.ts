import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();

interface TokenLine {
  token_id: string;
  status: string;
  allow_search: boolean;
}

describe('console in Chromium: an enrolment token that allows finding holders by name', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest('Allow finding holders by name makes a token with allow_search, and its replacement too', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Name Search Fest');
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Name Search Fest' }).click();
      const allow = page.getByLabel('Allow finding holders by name');
      await allow.waitFor();
      assert.equal(await allow.isChecked(), false, 'off unless asked for');
      await allow.check();
      assert.deepEqual(await seriousViolations(page), []);
      await page.getByRole('button', { name: 'New enrolment token' }).click();
      await page.getByText('This scanner may find holders by name.').waitFor();
      const uri = new URL((await page.locator('code.uri').textContent()) ?? '');
      const tokens = () => admin<{ enrollment_tokens: TokenLine[] }>(issuer, 'GET', `/events/${eid}/enrollment-tokens`);
      assert.deepEqual(
        (await tokens()).enrollment_tokens.map((t) => t.allow_search),
        [true],
      );

      // A phone uses it: its key may search, and the card's fresh code for the next phone may too.
      const scanner = await enrollWith(issuer, uri.searchParams.get('token')!);
      const res = await fetch(`${issuer.url}/api/v1/events/${eid}/tickets/search?q=nobody`, {
        headers: { authorization: `Bearer ${scanner.apiKey}` },
      });
      assert.equal(res.status, 200);
      await page.getByText(/^Used by /).waitFor({ timeout: 15_000 });
      await page.getByText('This scanner may find holders by name.').waitFor();
      const lines = (await tokens()).enrollment_tokens;
      assert.deepEqual(
        lines.map((t) => [t.status, t.allow_search]),
        [
          ['open', true],
          ['used', true],
        ],
      );
    } finally {
      await context.close();
    }
  });
});
