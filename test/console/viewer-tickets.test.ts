import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  openConsole,
  signInWithPassword,
} from './harness.ts';
import { addPerson, PASSWORD } from './people-harness.ts';

browserSkipReason();

/** Opens every folded section of the page. */
async function unfold(page: Page): Promise<void> {
  const folded = page.locator('details:not([open]) > summary');
  while ((await folded.count()) > 0) await folded.first().click();
}

describe('console in Chromium: a viewer reads tickets without their tokens', () => {
  const f = consoleFixture();
  before(() => f.open());
  after(() => f.close());

  browserTest(
    'the event page lists and finds tickets with no QR code link and no printable sheet; the sheet’s address says the role does not allow it',
    async () => {
      const eid = await createEvent(f.issuer(), 'Quiet Reading');
      const { tickets } = await admin<{ tickets: { tid: string; ticket_token: string }[] }>(
        f.issuer(),
        'POST',
        `/events/${eid}/tickets`,
        { tickets: [{ holder_name: 'Ada Lovelace', ticket_type: 'GA' }] },
      );
      const vera = await addPerson(f.issuer(), {
        email: 'vera@example.org',
        name: 'Vera',
        role: 'viewer',
        events: [eid],
      });
      const { context, page } = await openConsole(f.browser(), f.issuer());
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(error.message));
      try {
        await signInWithPassword(page, vera.email, PASSWORD);
        await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        await page.goto(`${f.issuer().url}/console/#/events/${eid}`);
        await page.getByRole('heading', { level: 1, name: 'Quiet Reading' }).waitFor();
        await unfold(page);
        const found = page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem');
        await found.filter({ hasText: 'Ada Lovelace' }).waitFor();
        assert.equal(await found.getByRole('link', { name: 'QR code' }).count(), 0, 'no QR code link');
        assert.equal(await page.getByRole('link', { name: 'Printable ticket QR codes' }).count(), 0);
        assert.equal((await page.content()).includes(tickets[0]!.ticket_token), false, 'no token on the page');

        await page.goto(`${f.issuer().url}/console/#/events/${eid}/print`);
        await page.getByText('Your role (viewer) does not allow this page.').waitFor();
        assert.equal(await page.getByRole('img', { name: /QR code of the ticket/ }).count(), 0);
        assert.deepEqual(failures, [], 'no script error');
      } finally {
        await context.close();
      }
    },
  );
});
