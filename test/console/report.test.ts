import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { allViolations, fitsWidth } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  type RunningIssuer,
  signIn,
  signInWithPassword,
} from './harness.ts';
import { addPerson, PASSWORD } from './people-harness.ts';
import { craftedHistory, EXPECTED, ZONE } from './report-history.ts';

browserSkipReason();

interface Report {
  tickets: Record<string, number>;
  by_hour: { hour: string; entries: number; exits: number; inside_at_end: number }[];
  by_day: { date: string; entries: number; unique_holders: number }[];
  peak_inside: { at: string | null; inside: number };
}

/** A console in US English on a laptop in Berlin: the report must still speak the event's zone. */
async function openUs(browser: Browser, issuer: RunningIssuer, width: number) {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    locale: 'en-US',
    timezoneId: 'Europe/Berlin',
    acceptDownloads: true,
  });
  const page = await context.newPage();
  await page.goto(`${issuer.url}/console/`);
  return { context, page };
}

/** The cells of a table captioned `caption`, row by row. */
const tableRows = (page: Page, caption: string) =>
  page
    .getByRole('table', { name: caption })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? '')));

const inZone = (options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-US', { ...options, timeZone: ZONE });

/** Opens the report from the event page's link, and checks every number against the crafted history. */
async function readReport(page: Page, issuer: RunningIssuer, eid: string, name: string) {
  await page.goto(`${issuer.url}/console/#/events/${eid}`);
  await page.getByRole('link', { name: 'Report and exports' }).click();
  await page.getByRole('heading', { level: 1, name: `Report: ${name}` }).waitFor();
  await page.getByText(`Dates and hours in the event’s time zone, ${ZONE}.`).waitFor();
  const report = await admin<Report>(issuer, 'GET', `/events/${eid}/report`);
  assert.deepEqual(report.tickets, EXPECTED.tickets, 'the issuer counts the crafted history');

  const totals = page.getByRole('list', { name: 'Ticket totals' });
  for (const [id, value] of [
    ['report-issued', EXPECTED.tickets.issued],
    ['report-checked-in', EXPECTED.tickets.checked_in],
    ['report-no-show', EXPECTED.tickets.no_show],
    ['report-revoked', EXPECTED.tickets.revoked],
    ['report-peak', EXPECTED.peak],
  ] as const) {
    assert.equal(await totals.getByTestId(id).textContent(), String(value), id);
  }
  const peakAt = inZone({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(report.peak_inside.at!));
  await totals.getByText(`Most inside, at ${peakAt}`).waitFor();

  assert.deepEqual(await tableRows(page, 'Entries and exits at each gate'), [
    ['North gate (north)', '2', '1'],
    ['south', '2', '0'],
  ]);
  assert.deepEqual(
    await tableRows(page, 'Tickets of each type'),
    EXPECTED.by_type.map((t) => [t.ticket_type, String(t.issued), String(t.checked_in), String(t.no_show)]),
  );
  // The same numbers as charts, found by their names and described in words.
  const perType = EXPECTED.by_type
    .map((t) => `${t.ticket_type}: ${t.checked_in} of ${t.issued} checked in, ${t.no_show} no-shows`)
    .join('; ');
  for (const [name, words] of [
    ['Entries and exits per gate', 'North gate (north): 2 entries, 1 exit; south: 2 entries, 0 exits.'],
    ['Checked in and no-shows per ticket type', `${perType}.`],
  ] as const) {
    const bars = page.getByRole('img', { name });
    await bars.locator('canvas').waitFor();
    const describedBy = await bars.getAttribute('aria-describedby');
    assert.equal(await page.locator(`[id="${describedBy}"]`).textContent(), words, name);
  }
  const day = (date: string) => inZone({ dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  assert.deepEqual(
    await tableRows(page, 'Each event day'),
    report.by_day.map((d) => [day(d.date), String(d.entries), String(d.unique_holders)]),
  );
  assert.equal(
    report.by_day.reduce((sum, d) => sum + d.entries, 0),
    4,
    'four entries that count',
  );

  // Hour by hour, in Kolkata's hours (they start at half past in Berlin), every number the chart draws.
  await page.getByText('Hour by hour', { exact: true }).click();
  const hourText = (iso: string) =>
    `${inZone({ dateStyle: 'medium' }).format(new Date(iso))}, ${inZone({ timeStyle: 'short' }).format(new Date(iso))}`;
  const hours = await tableRows(page, `Each hour in ${ZONE}`);
  assert.deepEqual(
    hours,
    report.by_hour.map((h) => [hourText(h.hour), String(h.entries), String(h.exits), String(h.inside_at_end)]),
  );
  assert.ok(
    hours.every(([hour]) => /:30 [AP]M$/.test(hour!) === false),
    'hours start on Kolkata’s hour',
  );
  assert.equal(
    hours.reduce((sum, row) => sum + Number(row[1]), 0),
    4,
  );
  assert.equal(
    hours.reduce((sum, row) => sum + Number(row[2]), 0),
    1,
  );

  const chart = page.getByRole('img', { name: 'Arrivals and people inside over time' });
  await chart.locator('canvas').waitFor();
  const described = await chart.getAttribute('aria-describedby');
  const summary = await page.locator(`[id="${described}"]`).textContent();
  assert.match(
    summary ?? '',
    new RegExp(`^4 entries hour by hour from .* \\(${ZONE}\\)\\. .*The most inside at once: 3, at ${peakAt}\\.$`),
  );
}

/** Both downloads, as a click on each link: CSV files with a header row. */
async function downloads(page: Page): Promise<string[]> {
  const texts: string[] = [];
  for (const name of ['Download tickets (CSV)', 'Download the scan log (CSV)']) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
    assert.match(download.suggestedFilename(), /\.csv$/);
    texts.push(await readFile((await download.path())!, 'utf8'));
  }
  return texts;
}

describe('console in Chromium: the Report page', () => {
  const f = consoleFixture();
  let eid = '';
  const NAME = 'Diwali Night';
  before(async () => {
    await f.open();
    if (browserSkipReason() === undefined) eid = await craftedHistory(f.issuer(), NAME);
  });
  after(async () => f.close());

  browserTest('an owner reads the crafted history in the event’s zone and downloads both CSV files', async () => {
    const { context, page } = await openUs(f.browser(), f.issuer(), 1280);
    try {
      await signIn(page);
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await readReport(page, f.issuer(), eid, NAME);
      const [tickets, scans] = await downloads(page);
      assert.match(
        tickets!.split('\n')[0]!,
        /^\uFEFF?tid,holder_name,email,ticket_type,order_ref,status,first_entry_at,last_exit_at,entries\r?$/,
      );
      assert.equal(tickets!.trim().split('\n').length, 1 + 6, 'a row per ticket');
      assert.match(scans!.split('\n')[0]!, /scanned_at/);
      assert.ok(scans!.trim().split('\n').length >= 1 + 6, 'a row per scan');
      await page.screenshot({ path: '/tmp/console-report-1280.png', fullPage: true });
    } finally {
      await context.close();
    }
  });

  browserTest('a viewer of the event reads the same report and downloads both CSV files', async () => {
    const vera = await addPerson(f.issuer(), {
      email: 'vera@example.org',
      name: 'Vera',
      role: 'viewer',
      events: [eid],
    });
    const { context, page } = await openUs(f.browser(), f.issuer(), 1280);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    try {
      await signInWithPassword(page, vera.email, PASSWORD);
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await readReport(page, f.issuer(), eid, NAME);
      const [tickets, scans] = await downloads(page);
      assert.equal(tickets!.trim().split('\n').length, 1 + 6);
      assert.match(scans!.split('\n')[0]!, /scanned_at/);
      assert.deepEqual(failures, []);
    } finally {
      await context.close();
    }
  });

  browserTest('axe-core finds no violation on the Report page, wide and at 375 px, which it fits', async () => {
    const found: string[] = [];
    for (const width of [1280, 375]) {
      const { context, page } = await openUs(f.browser(), f.issuer(), width);
      try {
        await signIn(page);
        await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        await page.goto(`${f.issuer().url}/console/#/events/${eid}/report`);
        for (const name of [
          'Arrivals and people inside over time',
          'Entries and exits per gate',
          'Checked in and no-shows per ticket type',
        ])
          await page.getByRole('img', { name }).locator('canvas').waitFor();
        await page.getByText('Hour by hour', { exact: true }).click();
        found.push(...(await allViolations(page)).map((v) => `${width} px: ${v}`));
        if (width === 375) assert.ok(await fitsWidth(page), 'no sideways scrolling at 375 px');
        await page.screenshot({ path: `/tmp/console-report-${width}-open.png`, fullPage: true });
      } finally {
        await context.close();
      }
    }
    assert.deepEqual(found, []);
  });
});
