import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { eventually } from '../helpers/eventually.ts';
import { TestSmtpServer } from '../helpers/smtp-server.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  openConsole,
  type RunningIssuer,
  signIn,
  signInWithPassword,
} from './harness.ts';
import { addPerson, PASSWORD } from './people-harness.ts';

/**
 * CONTRACT.md, "Tickets reach their holders", the Console bullet: the event page has **Send tickets**
 * with counts (with an email, sent, failed), and each ticket its email, its delivery status in words,
 * **Resend** and its holder link; a viewer sees none of these. Against a real SMTP server.
 */

browserSkipReason();

interface Issued {
  tid: string;
  holder_name: string;
  email?: string;
  holder_url?: string;
}

const smtp = await TestSmtpServer.start();
const REFUSED = 'nobody@refused.example.org';

/** Opens every folded section of the page. */
async function unfold(page: Page): Promise<void> {
  const folded = page.locator('details:not([open]) > summary');
  while ((await folded.count()) > 0) await folded.first().click();
}

async function eventWithEmails(issuer: RunningIssuer, name: string) {
  const eid = await createEvent(issuer, name);
  const { tickets } = await admin<{ tickets: Issued[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
    tickets: [
      { holder_name: 'Ada Lovelace', ticket_type: 'GA', email: `ada.${process.pid}@example.org` },
      { holder_name: 'Bob Refused', ticket_type: 'GA', email: REFUSED },
      { holder_name: 'Cy Nomail', ticket_type: 'GA' },
    ],
  });
  return { eid, tickets };
}

async function openEvent(page: Page, issuer: RunningIssuer, eid: string, name: string): Promise<void> {
  await page.goto(`${issuer.url}/console/#/events/${eid}`);
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await unfold(page);
}

const rows = (page: Page) => page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem');
const received = (email: string) => smtp.received.filter((m) => m.to.includes(email)).length;

describe('console in Chromium: sending tickets by email', () => {
  const f = consoleFixture({ SMTP_URL: smtp.url, MAIL_FROM: 'Box Office <tickets@example.org>' });
  before(() => f.open());
  after(() => f.close());

  browserTest(
    'Send tickets asks naming the count, queues them, and the rows show Sent, Failed with the reply, and Resend sends again',
    async () => {
      smtp.answerFor = (to) => (to.includes(REFUSED) ? { code: 550, message: '5.1.1 no such mailbox here' } : 'accept');
      const { eid, tickets } = await eventWithEmails(f.issuer(), 'Mail Fest');
      const [ada, bob] = tickets as [Issued, Issued];
      const { context, page } = await openConsole(f.browser(), f.issuer());
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(error.message));
      try {
        await signIn(page);
        await openEvent(page, f.issuer(), eid, 'Mail Fest');
        const counts = page.getByTestId('delivery-counts');
        await counts
          .filter({ hasText: '2 tickets have an email: 0 sent, 0 failed, 0 queued, 2 not sent yet.' })
          .waitFor();
        const adaRow = rows(page).filter({ hasText: 'Ada Lovelace' });
        const bobRow = rows(page).filter({ hasText: 'Bob Refused' });
        await adaRow.getByText(ada.email!).waitFor();
        await adaRow.getByText('Not sent').waitFor();
        const link = adaRow.getByRole('link', { name: 'Holder page' });
        assert.equal(await link.getAttribute('href'), ada.holder_url);
        assert.equal(await link.getAttribute('target'), '_blank');
        assert.equal(await link.getAttribute('rel'), 'noopener');
        await rows(page).filter({ hasText: 'Cy Nomail' }).getByText('No email').waitFor();
        assert.deepEqual(await seriousViolations(page), [], 'the page with its emails passes axe');

        await page.getByRole('button', { name: 'Send tickets' }).click();
        const ask = page.getByRole('alertdialog', { name: 'Send tickets by email?' });
        await ask.getByText('2 emails will go').waitFor();
        await ask.getByRole('button', { name: 'Send 2 emails' }).click();
        await page.getByRole('status').filter({ hasText: '2 emails queued' }).waitFor();

        await eventually('both answered by the SMTP server', () => received(ada.email!) === 1 && smtp.answered >= 2);
        await adaRow.getByText(/^Sent /).waitFor();
        await bobRow.getByText(/^Failed: .*550.*no such mailbox here/).waitFor();
        await counts.filter({ hasText: '1 sent, 1 failed, 0 queued, 0 not sent yet.' }).waitFor();
        assert.equal(received(REFUSED), 0);

        await adaRow.getByRole('button', { name: 'Resend' }).click();
        await adaRow
          .getByRole('status')
          .filter({ hasText: `Queued: the ticket goes to ${ada.email} again.` })
          .waitFor();
        await eventually('the second email', () => received(ada.email!) === 2);
        await adaRow.getByText(/^Sent /).waitFor();
        assert.ok(bob.tid);

        assert.deepEqual(await seriousViolations(page), [], 'after sending, the page passes axe');
        const ticketsSection = page.locator('section', {
          has: page.getByRole('heading', { level: 2, name: 'Tickets', exact: true }),
        });
        await page.screenshot({ path: '/tmp/console-deliveries-1280.png', fullPage: true });
        await ticketsSection.screenshot({ path: '/tmp/console-deliveries-tickets-1280.png' });
        await page.setViewportSize({ width: 375, height: 800 });
        await adaRow.scrollIntoViewIfNeeded();
        assert.equal(await fitsWidth(page), true, 'no sideways scroll at 375 px');
        await page.screenshot({ path: '/tmp/console-deliveries-375.png', fullPage: true });
        await ticketsSection.screenshot({ path: '/tmp/console-deliveries-tickets-375.png' });
        assert.deepEqual(failures, [], 'no script error');
      } finally {
        smtp.answerFor = null;
        await context.close();
      }
    },
  );

  browserTest('a viewer sees the counts but no Send tickets, no emails, no holder links and no Resend', async () => {
    const { eid, tickets } = await eventWithEmails(f.issuer(), 'Viewer Fest');
    const vera = await addPerson(f.issuer(), {
      email: 'vera@example.org',
      name: 'Vera',
      role: 'viewer',
      events: [eid],
    });
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signInWithPassword(page, vera.email, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await openEvent(page, f.issuer(), eid, 'Viewer Fest');
      await rows(page).filter({ hasText: 'Ada Lovelace' }).waitFor();
      await page.getByTestId('delivery-counts').filter({ hasText: 'an email' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send tickets' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Resend' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Holder page' }).count(), 0);
      const content = await page.content();
      assert.equal(content.includes(tickets[0]!.email!), false, 'no email on the page');
      assert.equal(content.includes(REFUSED), false, 'no email on the page');
    } finally {
      await context.close();
    }
  });
});

describe('console in Chromium: sending tickets without mail configured', () => {
  const f = consoleFixture();
  before(() => f.open());
  after(() => f.close());

  browserTest('Send tickets says mail is not configured and how to configure it', async () => {
    const { eid } = await eventWithEmails(f.issuer(), 'No Mail Fest');
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await openEvent(page, f.issuer(), eid, 'No Mail Fest');
      await page.getByTestId('delivery-counts').filter({ hasText: '2 not sent yet' }).waitFor();
      await page.getByRole('button', { name: 'Send tickets' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Send 2 emails' }).click();
      const problem = page.getByRole('alert').filter({ hasText: 'Mail is not configured on this issuer' });
      await problem.waitFor();
      const text = await problem.textContent();
      assert.match(text!, /SMTP_URL/);
      assert.match(text!, /MAIL_FROM/);
      await page.getByTestId('delivery-counts').filter({ hasText: '0 queued, 2 not sent yet' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
