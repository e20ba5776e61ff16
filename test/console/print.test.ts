import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  checkCode,
  enrolled,
  issueTickets,
  openPhone,
  startScanIssuer,
  verdictOf,
  webScannerLink,
} from '../scan/harness.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  checkIn,
  createEvent,
  enrollWith,
  launchBrowser,
  openConsole,
  signIn,
  type RunningIssuer,
} from './harness.ts';

browserSkipReason();

describe('console in Chromium: the printed ticket sheet', () => {
  let issuer: RunningIssuer | null = null;
  let browser: Browser | null = null;
  before(async () => {
    if (browserSkipReason() !== undefined) return;
    // BASE_URL names the port it listens on: the web scanner below talks to it.
    issuer = await startScanIssuer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  browserTest(
    'the code under each QR is the ticket token, which the web scanner’s Ticket code accepts; no "(checked in)"',
    async () => {
      const eid = await createEvent(issuer!, 'Printed Fest');
      const [ada, alan] = await issueTickets(issuer!, eid, ['Ada Lovelace', 'Alan Turing']);
      const { token } = await admin<{ token: string }>(issuer!, 'POST', `/events/${eid}/enrollment-tokens`, {});
      assert.equal((await checkIn(issuer!, await enrollWith(issuer!, token), eid, ada!.tid)).body.status, 'valid');

      const { context, page } = await openConsole(browser!, issuer!);
      let printed: Map<string, string>;
      try {
        await signIn(page);
        await page.goto(`${issuer!.url}/console/#/events/${eid}/print`);
        await page.getByRole('heading', { level: 1, name: 'Tickets of Printed Fest' }).waitFor();
        const cards = page
          .getByRole('listitem')
          .filter({ has: page.getByRole('img', { name: /QR code of the ticket/ }) });
        await cards.first().waitFor();
        assert.equal(await cards.count(), 2);
        const sheet = (await page.locator('main').textContent()) ?? '';
        assert.doesNotMatch(sheet, /checked in/i, 'a checked-in ticket is printed as any other');
        printed = new Map();
        for (const card of await cards.all()) {
          const holder = (await card.locator('strong').textContent())!;
          printed.set(holder, ((await card.locator('code').textContent()) ?? '').replace(/\s/g, ''));
          await card.getByText('Ticket code', { exact: true }).waitFor();
        }
        assert.equal(printed.get('Ada Lovelace'), ada!.ticket_token);
        assert.equal(printed.get('Alan Turing'), alan!.ticket_token);
        // In print the code stays on the card: wrapped, never wider than it.
        await page.emulateMedia({ media: 'print' });
        for (const card of await cards.all()) {
          const fits = await card.evaluate((li) => li.querySelector('code')!.scrollWidth <= li.clientWidth);
          assert.ok(fits, 'the printed code wraps inside its card');
        }
      } finally {
        await context.close();
      }

      // A gate attendant types the printed codes into the web scanner.
      const phone = await openPhone(browser!, await webScannerLink(issuer!, eid));
      try {
        await enrolled(phone.page);
        await checkCode(phone.page, printed.get('Alan Turing')!);
        assert.match(await verdictOf(phone.page, 'Admit'), /Alan Turing/);
        await checkCode(phone.page, printed.get('Ada Lovelace')!);
        assert.match(await verdictOf(phone.page, 'Reject'), /already used/);
      } finally {
        await phone.context.close();
      }
    },
  );
});
