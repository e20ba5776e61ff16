import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import { issueTickets, startScanIssuer } from '../scan/harness.ts';
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
    'the code under each QR is the ticket’s short code (not the long token), which the issuer resolves for a scanner; no "(checked in)"',
    async () => {
      const eid = await createEvent(issuer!, 'Printed Fest');
      const [ada, alan] = await issueTickets(issuer!, eid, ['Ada Lovelace', 'Alan Turing']);
      const { token } = await admin<{ token: string }>(issuer!, 'POST', `/events/${eid}/enrollment-tokens`, {});
      const scanner = await enrollWith(issuer!, token);
      assert.equal((await checkIn(issuer!, scanner, eid, ada!.tid)).body.status, 'valid');
      const codeOf = async (tid: string) =>
        (await admin<{ short_code: string }>(issuer!, 'GET', `/tickets/${tid}`)).short_code;

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
        assert.equal(printed.get('Ada Lovelace')!.replace('-', ''), (await codeOf(ada!.tid)).replace('-', ''));
        assert.equal(printed.get('Alan Turing')!.replace('-', ''), (await codeOf(alan!.tid)).replace('-', ''));
        assert.ok(!sheet.includes(ada!.ticket_token), 'the long token is not printed');
        // In print the code stays on the card: wrapped, never wider than it.
        await page.emulateMedia({ media: 'print' });
        for (const card of await cards.all()) {
          const fits = await card.evaluate((li) => li.querySelector('code')!.scrollWidth <= li.clientWidth);
          assert.ok(fits, 'the printed code wraps inside its card');
        }
      } finally {
        await context.close();
      }

      // A gate attendant types a printed code, in lower case with a space: the issuer names its ticket.
      const typed = printed.get('Alan Turing')!.toLowerCase().replace('-', ' ');
      const res = await fetch(`${issuer!.url}/api/v1/events/${eid}/tickets/by-code/${encodeURIComponent(typed)}`, {
        headers: { authorization: `Bearer ${scanner.apiKey}` },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), {
        tid: alan!.tid,
        holder_name: 'Alan Turing',
        ticket_type: 'General admission',
      });
      assert.equal((await checkIn(issuer!, scanner, eid, alan!.tid)).body.status, 'valid');
    },
  );
});
