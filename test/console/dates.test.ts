import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  admin,
  browserSkipReason,
  browserTest,
  checkIn,
  consoleFixture,
  createEvent,
  enrollWith,
  type RunningIssuer,
  signIn,
} from './harness.ts';

browserSkipReason();

/** A console in a browser context of the given language and time zone. */
async function openIn(browser: Browser, issuer: RunningIssuer, locale: string, timezoneId: string, init?: () => void) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale, timezoneId });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  await page.goto(`${issuer.url}/console/`);
  return { context, page };
}

describe('console in Chromium: time zones and one date format', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest(
    'the new-event form starts in the browser’s zone, beside the date, and reads the date in it',
    async () => {
      const { context, page } = await openIn(f.browser(), f.issuer(), 'en-US', 'America/New_York');
      try {
        await signIn(page);
        await page.getByRole('button', { name: 'New event' }).click();
        const zone = page.getByLabel('Time zone');
        assert.equal(await zone.inputValue(), 'America/New_York');
        // Beside the date on a wide screen: the same row, to its right.
        const dateBox = (await page.getByLabel('Event date').boundingBox())!;
        const zoneBox = (await zone.boundingBox())!;
        assert.ok(Math.abs(dateBox.y - zoneBox.y) < 2 && zoneBox.x > dateBox.x, 'the zone stands beside the date');

        await page.getByLabel('Name').fill('Harbour Nights');
        await page.getByLabel('Event date').fill('2030-07-01T19:30');
        await page.getByRole('button', { name: 'Create event' }).click();
        await page.getByRole('heading', { level: 1, name: 'Harbour Nights' }).waitFor();
        const eid = decodeURIComponent(page.url().split('/events/')[1]!);
        const made = await admin<{ timezone: string; event_date: string }>(f.issuer(), 'GET', `/events/${eid}`);
        assert.deepEqual([made.timezone, made.event_date], ['America/New_York', '2030-07-01T23:30:00Z']);

        // Another zone typed in: the date and the end are read in it.
        await page.goto(`${f.issuer().url}/console/#/`);
        await page.getByRole('button', { name: 'New event' }).click();
        await page.getByLabel('Name').fill('Tokyo Nights');
        await page.getByLabel('Event date').fill('2030-07-01T19:30');
        await page.getByLabel('Ends at (optional)').fill('2030-07-02T01:00');
        await page.getByLabel('Time zone').fill('Asia/Tokyo');
        await page.getByRole('button', { name: 'Create event' }).click();
        await page.getByRole('heading', { level: 1, name: 'Tokyo Nights' }).waitFor();
        const tokyo = decodeURIComponent(page.url().split('/events/')[1]!);
        const other = await admin<{ timezone: string; event_date: string; ends_at: string }>(
          f.issuer(),
          'GET',
          `/events/${tokyo}`,
        );
        assert.deepEqual(
          [other.timezone, other.event_date, other.ends_at],
          ['Asia/Tokyo', '2030-07-01T10:30:00Z', '2030-07-01T16:00:00Z'],
        );

        // A zone nobody knows is refused in words.
        await page.goto(`${f.issuer().url}/console/#/`);
        await page.getByRole('button', { name: 'New event' }).click();
        await page.getByLabel('Name').fill('Nowhere Nights');
        await page.getByLabel('Event date').fill('2030-07-01T19:30');
        await page.getByLabel('Time zone').fill('Mars/Olympus_Mons');
        await page.getByRole('button', { name: 'Create event' }).click();
        const alert = page.getByRole('alert');
        await alert.waitFor();
        assert.equal(
          await alert.textContent(),
          'The event was not created: The time zone is not one the issuer knows (e.g. Europe/Paris).',
        );
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the arrivals chart’s axis writes dates and times as the rest of the console does', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Axis Fest');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Ada Lovelace', ticket_type: 'GA' }],
    });
    const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
    await checkIn(issuer, await enrollWith(issuer, token), eid, tickets[0]!.tid);

    // A US browser: uPlot's own axis would write "12/2"; the console writes "Dec 2, 2026" everywhere.
    // Every text drawn on a canvas (uPlot draws its axes there).
    const { context, page } = await openIn(f.browser(), issuer, 'en-US', 'Europe/Berlin', () => {
      const drawn: string[] = [];
      Object.assign(window, { drawn });
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, max?: number) {
        drawn.push(String(text));
        return max === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, max);
      };
    });
    try {
      await signIn(page);
      await page.goto(`${issuer.url}/console/#/events/${eid}`);
      await page.getByRole('img', { name: 'Arrivals over time' }).locator('canvas').waitFor();
      const line = await page
        .getByRole('region', { name: 'Scan log' })
        .locator('ul.scan-log .muted')
        .first()
        .textContent();
      // The scan log's "Dec 2, 2026, 2:07 PM · no gate · …": its date, as the console writes dates.
      const logDate = /^(\w{3} \d{1,2}, \d{4}), /.exec(line ?? '')?.[1];
      assert.ok(logDate, `the scan log's line ${line} starts with a medium date`);
      await page.waitForFunction(() => (window as unknown as { drawn: string[] }).drawn.length > 0);
      const drawn = await page.evaluate(() => (window as unknown as { drawn: string[] }).drawn);
      assert.ok(drawn.includes(logDate), `the axis writes the date ${logDate} (drawn: ${drawn.join(' | ')})`);
      assert.equal(
        drawn.filter((text) => /^\d{1,2}\/\d{1,2}/.test(text)).length,
        0,
        `no US numeric date on the axis (drawn: ${drawn.join(' | ')})`,
      );
      assert.ok(
        drawn.some((text) => /^\d{1,2}:\d\d [AP]M$/.test(text)),
        'the times as the console writes them ("2:00 PM")',
      );
    } finally {
      await context.close();
    }
  });
});
