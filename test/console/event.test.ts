import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { fitsWidth } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  checkIn,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();

describe('console in Chromium: events', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest('"New event" opens a form; "Create event" leads to the new event’s page', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await page.getByRole('button', { name: 'New event' }).click();
      await page.getByLabel('Name').fill('Harbour Nights');
      await page.getByLabel('Event date').fill('2030-07-01T19:30');
      await page.getByRole('button', { name: 'Create event' }).click();
      await page.getByRole('heading', { level: 1, name: 'Harbour Nights' }).waitFor();
      assert.match(page.url(), /#\/events\/evt_/);
      const eid = decodeURIComponent(page.url().split('/events/')[1]!);
      const event = await admin<{ name: string; event_date: string }>(f.issuer(), 'GET', `/events/${eid}`);
      assert.equal(event.name, 'Harbour Nights');
      for (const id of ['count-issued', 'count-checked-in', 'count-revoked', 'count-conflicts']) {
        assert.equal(await page.getByTestId(id).textContent(), '0', id);
      }
      await page.getByRole('link', { name: 'All events' }).click();
      await page.getByRole('link', { name: 'Harbour Nights' }).waitFor();
    } finally {
      await context.close();
    }
  });

  browserTest(
    'a check-in through the scanner API shows in the counters and the chart within 5 s, without a reload',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Live Counter Fest');
      const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
        tickets: [
          { holder_name: 'Ada Lovelace', ticket_type: 'GA' },
          { holder_name: 'Alan Turing', ticket_type: 'GA' },
        ],
      });
      const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
        gate_id: 'north',
      });
      const scanner = await enrollWith(issuer, token, 'north');
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Live Counter Fest' }).click();
        await page.getByRole('heading', { level: 1, name: 'Live Counter Fest' }).waitFor();
        assert.equal(await page.getByTestId('count-issued').textContent(), '2');
        assert.equal(await page.getByTestId('count-checked-in').textContent(), '0');
        await page.evaluate(() => Object.assign(window, { notReloaded: true }));

        const answer = await checkIn(issuer, scanner, eid, tickets[0]!.tid, 'north');
        assert.equal(answer.body.status, 'valid');
        const started = Date.now();
        await page.waitForFunction(
          () => document.querySelector('[data-testid="count-checked-in"]')?.textContent === '1',
          null,
          { timeout: 5000 },
        );
        assert.ok(Date.now() - started < 5000);
        assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);

        const chart = page.getByRole('img', { name: 'Arrivals over time' });
        await chart.waitFor();
        // It counts entries (re-entries included), where the counter counts holders.
        await page.getByText('1 entry (each re-entry counts) in').waitFor({ timeout: 5000 });
        assert.equal(await chart.locator('canvas').count(), 1, 'uPlot drew the chart');
        // Per minute against local time (the axes are drawn on the canvas; the summary says it in words).
        await page.getByText('drawn per minute against local time').waitFor();
        await page
          .getByRole('region', { name: 'Scan log' })
          .getByText('valid', { exact: true })
          .waitFor({ timeout: 5000 });
      } finally {
        await context.close();
      }
    },
  );
  browserTest('an end before the start is refused in words, not field names', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await signIn(page);
      await page.getByRole('button', { name: 'New event' }).click();
      await page.getByLabel('Name').fill('Backwards Night');
      await page.getByLabel('Event date').fill('2030-07-01T19:30');
      await page.getByLabel('Ends at (optional)').fill('2030-07-01T18:00');
      await page.getByRole('button', { name: 'Create event' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.equal(await alert.textContent(), 'The event was not created: The end must be after the start.');
    } finally {
      await context.close();
    }
  });

  browserTest(
    'on a phone the event page leads with Inside now, conflicts and scanners; long sections fold, and open with a tap',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Pocket Fest');
      await admin(issuer, 'POST', `/events/${eid}/tickets`, { holder_name: 'Ada Lovelace', ticket_type: 'GA' });
      const { context, page } = await openConsole(f.browser(), issuer, { width: 375 });
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Pocket Fest' }).click();
        await page.getByRole('heading', { level: 1, name: 'Pocket Fest' }).waitFor();
        const top = async (locator: ReturnType<typeof page.locator>) => (await locator.boundingBox())!.y;
        const order = [
          await top(page.getByTestId('count-inside')),
          await top(page.getByTestId('count-conflicts')),
          await top(page.getByRole('region', { name: 'Conflicts' })),
          await top(page.getByRole('region', { name: 'Scanners' })),
          await top(page.getByRole('region', { name: 'Set up a scanner' })),
          await top(page.getByRole('region', { name: 'Scan log' })),
          await top(page.getByRole('region', { name: 'Tickets' })),
        ];
        assert.deepEqual(
          order,
          [...order].sort((a, b) => a - b),
          'inside now, conflicts, scanners, then the rest',
        );
        assert.ok(order[3]! < 900, 'the scanners start on the first screen');
        await page.getByRole('button', { name: 'New enrolment token' }).waitFor();

        // Long sections are folded: their headings show, their content does not until tapped.
        for (const name of ['Scan log', 'Gates', 'Entry rules', 'Arrivals over time', 'Tickets']) {
          const region = page.getByRole('region', { name });
          assert.equal(await region.getByRole('heading', { name }).isVisible(), true, name);
          assert.equal(await region.locator('details').getAttribute('open'), null, `${name} is folded`);
        }
        assert.equal(await page.getByLabel('Search tickets').isVisible(), false);
        await page.getByRole('region', { name: 'Tickets' }).getByRole('heading', { name: 'Tickets' }).click();
        await page.getByLabel('Search tickets').waitFor();
        await page.getByRole('list', { name: 'Tickets found' }).getByText('Ada Lovelace').waitFor();
        assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');
        await page.screenshot({ path: '/tmp/console-event-375.png' });
      } finally {
        await context.close();
      }

      // Wide, every section starts open.
      const wide = await openConsole(f.browser(), issuer, { width: 1280 });
      try {
        await signIn(wide.page);
        await wide.page.getByRole('link', { name: 'Pocket Fest' }).click();
        await wide.page.getByLabel('Search tickets').waitFor();
        assert.equal(await wide.page.locator('details:not([open])').count(), 0);
        await wide.page.screenshot({ path: '/tmp/console-event-1280.png' });
      } finally {
        await wide.context.close();
      }
    },
  );
});
