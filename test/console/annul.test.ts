import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  type RunningIssuer,
  signIn,
} from './harness.ts';

browserSkipReason();

interface Ticket {
  tid: string;
  status: string;
  checked_in_at: string | null;
}

/** An event with one scanner at the north gate, and a way to let tickets in and out through it. */
async function gateOf(issuer: RunningIssuer, name: string) {
  const eid = await createEvent(issuer, name);
  const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
    gate_id: 'north',
  });
  const scanner = await enrollWith(issuer, token, 'north');
  const ticket = async (holder_name: string) =>
    (await admin<{ tid: string }>(issuer, 'POST', `/events/${eid}/tickets`, { holder_name, ticket_type: 'GA' })).tid;
  const move = async (path: 'check-in' | 'check-out', tid: string) => {
    const res = await fetch(`${issuer.url}/api/v1/tickets/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
      body: JSON.stringify({
        tid,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        gate_id: 'north',
        idempotency_key: randomUUID(),
      }),
    });
    return ((await res.json()) as { status: string }).status;
  };
  const read = (tid: string) => admin<Ticket>(issuer, 'GET', `/tickets/${tid}`);
  const checkedIn = async () =>
    (await admin<{ counters: { checked_in: number } }>(issuer, 'GET', `/events/${eid}`)).counters.checked_in;
  return { eid, ticket, move, read, checkedIn };
}

/** Signs in, opens the event, and answers its Scan log section (unfolded on a phone). */
async function scanLogOf(page: Page, name: string) {
  await signIn(page);
  await page.getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  const log = page.getByRole('region', { name: 'Scan log' });
  if ((await log.locator('details').getAttribute('open')) === null) {
    await log.getByRole('heading', { name: 'Scan log' }).click();
  }
  return log;
}

describe('console in Chromium: annul an entry from the scan log', () => {
  const f = consoleFixture({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  let receiver: Receiver;
  before(async () => {
    await f.open();
    receiver = await Receiver.start();
  });
  after(async () => {
    await receiver?.close();
    await f.close();
  });

  browserTest(
    'Annul entry asks about the holder, takes a reason, and the ticket is valid again; the line says when',
    async () => {
      const issuer = f.issuer();
      const g = await gateOf(issuer, 'Annul Fest');
      const ada = await g.ticket('Ada Lovelace');
      const grace = await g.ticket('Grace Hopper');
      assert.equal(await g.move('check-in', ada), 'valid');
      assert.equal(await g.move('check-in', grace), 'valid');
      assert.equal(await g.checkedIn(), 2);

      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        const log = await scanLogOf(page, 'Annul Fest');
        const adaRow = page
          .getByRole('list', { name: 'Tickets found' })
          .getByRole('listitem')
          .filter({ hasText: 'Ada Lovelace' });
        await adaRow
          .locator('.state')
          .filter({ hasText: /^checked in$/ })
          .waitFor();
        const line = (holder: string) => log.locator('ul.scan-log > li').filter({ hasText: holder });
        await line('Ada Lovelace').getByRole('button', { name: 'Annul entry' }).waitFor();
        assert.equal(await log.getByRole('button', { name: 'Annul entry' }).count(), 2, 'one per entry');

        // Cancel leaves the entry as it was.
        await line('Grace Hopper').getByRole('button', { name: 'Annul entry' }).click();
        const dialog = page.getByRole('dialog', { name: 'Annul an entry' });
        await dialog.waitFor();
        assert.match((await dialog.textContent())!, /Annul the entry of Grace Hopper, scanned .* at north\?/);
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'hidden' });
        assert.equal((await g.read(grace)).checked_in_at === null, false);
        const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
        assert.equal(await focused(), 'Annul entry', 'back on the button');
        // A poll draws the log anew; the focus stays on that line's button.
        const button = await page.evaluateHandle(() => document.activeElement!);
        await page.waitForFunction((element) => !element.isConnected, button, { timeout: 5000 });
        assert.equal(
          await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('.holder')?.textContent),
          'Grace Hopper',
        );
        assert.equal(await focused(), 'Annul entry');

        await line('Ada Lovelace').getByRole('button', { name: 'Annul entry' }).click();
        await dialog.waitFor();
        assert.match((await dialog.textContent())!, /Annul the entry of Ada Lovelace/);
        assert.equal(
          await page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest('dialog') !== null),
          true,
          'the focus moves into the dialog',
        );
        assert.deepEqual(await seriousViolations(page), [], 'the open dialog passes axe');
        await page.screenshot({ path: '/tmp/console-annul-dialog.png' });
        await dialog.getByLabel('Reason (optional)').fill('Wrong ticket taken from the stack');
        const clicked = Date.now();
        await dialog.getByRole('button', { name: 'Annul entry' }).click();
        await dialog.waitFor({ state: 'hidden' });

        await line('Ada Lovelace')
          .getByText(/^Entry annulled at /)
          .waitFor();
        // The focus goes to the line's note, where the button was.
        await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Entry annulled at '));
        assert.equal(await line('Ada Lovelace').getByRole('button', { name: 'Annul entry' }).count(), 0);
        await log
          .getByRole('status')
          .filter({ hasText: 'Annulled: the entry of Ada Lovelace no longer counts; the ticket is unused again.' })
          .waitFor();
        // The ticket list shows the ticket's new state, without a reload.
        await adaRow
          .locator('.state')
          .filter({ hasText: /^valid$/ })
          .waitFor({ timeout: 3000 });
        // Through the API: valid and unused again, one check-in fewer, the scan log's line annulled.
        const read = await g.read(ada);
        assert.deepEqual([read.status, read.checked_in_at], ['valid', null]);
        assert.equal(await g.checkedIn(), 1);
        const { scans } = await admin<{ scans: { tid: string; outcome: string; annulled_at: string | null }[] }>(
          issuer,
          'GET',
          `/events/${g.eid}/scans`,
        );
        const annulled = scans.find((s) => s.tid === ada)!;
        assert.equal(annulled.outcome, 'valid');
        assert.match(annulled.annulled_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
        const at = Date.parse(annulled.annulled_at!);
        assert.ok(at >= clicked - 1000 && at <= Date.now(), 'the issuer’s clock at the annul');
        assert.equal(scans.find((s) => s.tid === grace)!.annulled_at, null);
        await page.getByTestId('count-checked-in').filter({ hasText: /^1$/ }).waitFor({ timeout: 5000 });
        // The whole page: the log's lines are drawn again at each poll, and a line's own element may be gone by then.
        await page.screenshot({ path: '/tmp/console-annulled-line.png' });

        // A poll later the line still says it, and a new entry of the ticket gets its own button.
        assert.equal(await g.move('check-in', ada), 'valid');
        await page.waitForFunction(() => document.querySelectorAll('ul.scan-log > li').length === 3, null, {
          timeout: 5000,
        });
        assert.equal(
          await line('Ada Lovelace')
            .getByText(/^Entry annulled at /)
            .count(),
          1,
        );
        assert.equal(await line('Ada Lovelace').getByRole('button', { name: 'Annul entry' }).count(), 1);
      } finally {
        await context.close();
      }
    },
  );

  browserTest('at 375 px, an entry the ticket moved on from is refused in words, and nothing changes', async () => {
    const issuer = f.issuer();
    const g = await gateOf(issuer, 'Moved Fest');
    const grace = await g.ticket('Grace Hopper');
    assert.equal(await g.move('check-in', grace), 'valid');

    const { context, page } = await openConsole(f.browser(), issuer, { width: 375 });
    try {
      const log = await scanLogOf(page, 'Moved Fest');
      const button = log.locator('ul.scan-log > li').filter({ hasText: 'Grace Hopper' }).getByRole('button', {
        name: 'Annul entry',
      });
      await button.waitFor();
      // The holder went out after the page showed the entry.
      assert.equal(await g.move('check-out', grace), 'checked_out');
      const opener = await button.elementHandle();
      await button.click();
      const dialog = page.getByRole('dialog', { name: 'Annul an entry' });
      await dialog.getByRole('button', { name: 'Annul entry' }).click();
      const refusal = dialog.getByRole('alert');
      await refusal.waitFor();
      assert.equal(await refusal.textContent(), 'Not annulled: the ticket moved since (an exit or a later entry).');
      assert.ok(await fitsWidth(page), 'the dialog fits 375 px');
      assert.deepEqual(await seriousViolations(page), [], 'the refusal passes axe');
      await page.screenshot({ path: '/tmp/console-annul-375.png' });
      // A poll drew the log anew behind the dialog: closing it still returns to the line's button.
      await page.waitForFunction((element) => !element!.isConnected, opener, { timeout: 5000 });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.waitForFunction(() => document.activeElement?.textContent === 'Annul entry');

      const read = await g.read(grace);
      assert.equal(read.checked_in_at === null, false, 'the entry still counts');
      assert.equal(await g.checkedIn(), 1);
      assert.equal(await log.getByText(/Entry annulled/).count(), 0);
    } finally {
      await context.close();
    }
  });

  browserTest('an endpoint that takes ticket.check_in_annulled, added in the console, receives the annul', async () => {
    const issuer = f.issuer();
    const g = await gateOf(issuer, 'Hook Fest');
    const ada = await g.ticket('Ada Lovelace');
    assert.equal(await g.move('check-in', ada), 'valid');

    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page
        .getByRole('group', { name: 'Event types' })
        .getByLabel('ticket.check_in_annulled', { exact: true })
        .check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = (await page
        .getByRole('status')
        .filter({ hasText: 'will not be shown again' })
        .getByText(/^whsec_/)
        .textContent())!;

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
      await page.getByRole('link', { name: 'Hook Fest' }).click();
      const log = page.getByRole('region', { name: 'Scan log' });
      await log.getByRole('button', { name: 'Annul entry' }).click();
      await page.getByRole('dialog', { name: 'Annul an entry' }).getByRole('button', { name: 'Annul entry' }).click();
      await log.getByText(/^Entry annulled at /).waitFor();

      const { payload } = await receiver.message(secret, 'ticket.check_in_annulled');
      const { scans } = await admin<{ scans: { scanner_id: string; annulled_at: string }[] }>(
        issuer,
        'GET',
        `/events/${g.eid}/scans`,
      );
      assert.deepEqual(payload.data, {
        eid: g.eid,
        tid: ada,
        scanner_id: scans[0]!.scanner_id,
        gate_id: 'north',
        annulled_at: scans[0]!.annulled_at,
        position: 2,
      });
    } finally {
      await context.close();
    }
  });
});
