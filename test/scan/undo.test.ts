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
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

interface TicketAnswer {
  status: string;
  checked_in_at: string | null;
}
interface ScanLine {
  tid: string;
  outcome: string;
  idempotency_key: string;
  annulled_at: string | null;
}

const ticketOf = (issuer: RunningIssuer, tid: string) => admin<TicketAnswer>(issuer, 'GET', `/tickets/${tid}`);
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);
const undoButton = (page: Page) => page.getByRole('button', { name: 'Undo' });
const undoResult = (page: Page) => page.getByTestId('undo-result');

/** The answer the Undo bar gives once it has one: its words and its kind. */
async function undoAnswer(page: Page): Promise<{ text: string; outcome: string | null }> {
  await page.waitForFunction(() => document.querySelector('[data-testid="undo-result"]')?.textContent !== '', null, {
    timeout: 10_000,
  });
  return {
    text: ((await undoResult(page).textContent()) ?? '').trim(),
    outcome: await undoResult(page).getAttribute('data-outcome'),
  };
}

async function verdictMatching(page: Page, pattern: RegExp): Promise<string> {
  await page.getByTestId('verdict').filter({ hasText: pattern }).waitFor({ timeout: 10_000 });
  return ((await page.getByTestId('verdict').textContent()) ?? '').trim();
}

describe('the web scanner’s Undo beside an Admit', { skip }, () => {
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

  const scanLog = async (eid: string) =>
    (await admin<{ scans: ScanLine[] }>(issuer, 'GET', `/events/${eid}/scans`)).scans;

  it('online: offered for 10 s past the verdict, undoes the entry at the issuer, the ticket valid again', async () => {
    const eid = await createEvent(issuer, 'Undo Night');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /^Admit\s+#1\s+Ada Lovelace/);
      assert.equal(await focusedId(page), 'ticket-code', 'Check gives the focus back to Ticket code');
      await undoButton(page).waitFor();
      assert.match((await page.locator('.undo-offer').textContent()) ?? '', /Admit #1 · Ada Lovelace/);
      assert.equal((await ticketOf(issuer, ada!.tid)).status, 'checked_in');
      await page.screenshot({ path: '/tmp/scan-undo-375.png', fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'the Undo bar');
      assert.ok(await fitsWidth(page));

      // The verdict clears after 5 s; the Undo stays, naming the admit it undoes.
      await page.waitForTimeout(6000);
      assert.match(await verdictOf(page, 'Ready', 100), /^Ready/);
      assert.ok(await undoButton(page).isVisible(), 'Undo still offered after 6 s');

      await undoButton(page).click();
      const answer = await undoAnswer(page);
      assert.equal(answer.outcome, 'undone');
      assert.match(answer.text, /^Entry undone: Admit #1 · Ada Lovelace/);
      assert.equal(await undoButton(page).isVisible(), false, 'an undo is offered once');
      assert.equal(await focusedId(page), 'ticket-code', 'the tap on Undo gives the focus back');
      const ticket = await ticketOf(issuer, ada!.tid);
      assert.equal(ticket.status, 'valid');
      assert.equal(ticket.checked_in_at, null);
      const [line] = (await scanLog(eid)).filter((scan) => scan.tid === ada!.tid);
      assert.equal(line?.outcome, 'valid');
      assert.ok(line?.annulled_at, 'the scan log keeps the scan, annulled');
      assert.deepEqual(await seriousViolations(page), [], 'the undo’s answer');

      // The holder may come in again: the ticket is unused.
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictMatching(page, /#2/), /^Admit\s+#2\s+Ada Lovelace/);
      assert.equal(await undoResult(page).textContent(), '', 'the next scan clears the answer');
    } finally {
      await context.close();
    }
  });

  it('offline: the undo is queued after its scan, said so, and both reach the issuer once it answers', async () => {
    const eid = await createEvent(issuer, 'Undo Offline');
    const [grace] = await issueTickets(issuer, eid, ['Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      await undoButton(page).click();
      const answer = await undoAnswer(page);
      assert.equal(answer.outcome, 'queued');
      assert.match(answer.text, /^Undo queued — will be sent when online: Admit #1/);
      assert.match(await verdictOf(page, 'Ready', 1000), /^Ready/, 'the undone admit shows no more');
      assert.equal(await page.getByTestId('queued').textContent(), '2', 'the scan, then its undo');
      assert.equal((await ticketOf(issuer, grace!.tid)).status, 'valid', 'nothing reached the issuer yet');
      await page.screenshot({ path: '/tmp/scan-undo-queued-375.png', fullPage: true });
      assert.deepEqual(await seriousViolations(page), [], 'a queued undo');

      await context.setOffline(false);
      await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
        timeout: 15_000,
      });
      const lines = (await scanLog(eid)).filter((scan) => scan.tid === grace!.tid);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.outcome, 'valid');
      assert.ok(lines[0]!.annulled_at, 'the entry reached the issuer, annulled');
      assert.equal((await ticketOf(issuer, grace!.tid)).status, 'valid');
      // Online again, the ticket lets its holder in.
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictMatching(page, /#2/), /^Admit\s+#2\s+Grace Hopper/);
    } finally {
      await context.close();
    }
  });

  it('is withdrawn by the next scan, and after 10 s', async () => {
    const eid = await createEvent(issuer, 'Undo Timing');
    const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Admit');
      await undoButton(page).waitFor();
      // A refusal next: no Undo (it would undo the admit before, which the screen no longer shows).
      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Reject');
      assert.equal(await undoButton(page).isVisible(), false, 'the next scan withdraws the Undo');

      await checkCode(page, grace!.ticket_token);
      await verdictMatching(page, /#2/);
      await undoButton(page).waitFor();
      assert.match((await page.locator('.undo-offer').textContent()) ?? '', /Admit #2 · Grace Hopper/);
      const shown = Date.now();
      await undoButton(page).waitFor({ state: 'hidden', timeout: 13_000 });
      const after = Date.now() - shown;
      assert.ok(after >= 9000 && after <= 12_000, `the Undo went after ${after} ms, not about 10 s`);
      assert.equal((await ticketOf(issuer, grace!.tid)).status, 'checked_in', 'nothing undone by itself');
    } finally {
      await context.close();
    }
  });
});

describe('the web scanner’s Undo past the window', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  before(async () => {
    issuer = await startScanIssuer({ ANNUL_WINDOW_S: '1' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('says it is too late in words, and the entry stands', async () => {
    const eid = await createEvent(issuer, 'Late Undo');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await checkCode(page, ada!.ticket_token);
      await verdictOf(page, 'Admit');
      await page.waitForTimeout(2500);
      await undoButton(page).click();
      const answer = await undoAnswer(page);
      assert.equal(answer.outcome, 'refused');
      assert.match(answer.text, /^Not undone: too late: .*The entry stands: Admit #1 · Ada Lovelace/);
      assert.doesNotMatch(answer.text, /window_passed|409|CONFLICT/);
      assert.equal(await undoButton(page).isVisible(), false, 'a refused undo is not offered again');
      assert.equal((await ticketOf(issuer, ada!.tid)).status, 'checked_in');
      assert.deepEqual(await seriousViolations(page), [], 'a refused undo');
    } finally {
      await context.close();
    }
  });

  it('offline too: the device judges by the issuer’s window it synced, not the default 900 s', async () => {
    const eid = await createEvent(issuer, 'Late Undo Offline');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      await page.waitForTimeout(2500);
      await undoButton(page).click();
      const answer = await undoAnswer(page);
      assert.equal(answer.outcome, 'refused');
      assert.match(answer.text, /^Not undone: too late: .*The entry stands: Admit #1/);
      assert.equal(await page.getByTestId('queued').textContent(), '1', 'the scan only: no undo queued');
    } finally {
      await context.close();
    }
  });
});
