import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
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
describe('console in Chromium: layout, accessibility, CSP', () => {
  const f = consoleFixture();
  let eid = '';
  before(async () => {
    await f.open();
    eid = await createEvent(f.issuer(), 'An Event With A Rather Long Name For A Small Phone Screen');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(f.issuer(), 'POST', `/events/${eid}/tickets`, {
      tickets: [
        { holder_name: 'Ada Lovelace', ticket_type: 'VIP' },
        { holder_name: 'Bartholomew Maximilian Featherstonehaugh-Cholmondeley', ticket_type: 'General admission' },
      ],
    });
    // A check-in, so that the pages are checked with the chart drawn and the scan log filled.
    const { token } = await admin<{ token: string }>(f.issuer(), 'POST', `/events/${eid}/enrollment-tokens`, {});
    await checkIn(f.issuer(), await enrollWith(f.issuer(), token), eid, tickets[0]!.tid);
  });
  after(async () => f.close());

  /** Each main page in turn, at the given width; `check` runs on each. */
  async function walk(width: number, check: (page: Page, name: string) => Promise<void>): Promise<void> {
    const { context, page } = await openConsole(f.browser(), f.issuer(), { width });
    try {
      await page.getByLabel('Email').waitFor();
      await check(page, 'sign-in');
      await signIn(page, 'wrong-token-0123456789abcdef');
      await page.getByRole('alert').waitFor();
      await check(page, 'sign-in with an error');
      await signIn(page);
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      await page.getByRole('button', { name: 'New event' }).click();
      await check(page, 'events with the new-event form');
      await page.goto(`${f.issuer().url}/console/#/events/${eid}`);
      await page.getByRole('heading', { level: 1, name: /An Event With/ }).waitFor();
      // On a phone the long sections start folded: each is opened, so that all of it is checked.
      const folded = page.locator('details:not([open]) > summary');
      while ((await folded.count()) > 0) await folded.first().click();
      await page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem').first().waitFor();
      await page.locator('.chart canvas').waitFor();
      await page.getByRole('button', { name: 'New enrolment token' }).click();
      await page.getByRole('img', { name: 'Setup QR code' }).waitFor();
      await check(page, 'event page');
      await page.goto(`${f.issuer().url}/console/#/events/${eid}/print`);
      await page
        .getByRole('img', { name: /QR code of the ticket/ })
        .first()
        .waitFor();
      await check(page, 'printable tickets');
      await page.goto(`${f.issuer().url}/console/#/keys`);
      await page.getByRole('heading', { level: 1, name: 'Signing keys' }).waitFor();
      await page.getByText('active', { exact: true }).waitFor();
      await check(page, 'signing keys');
    } finally {
      await context.close();
    }
  }

  browserTest('every main page fits 375 px without horizontal scrolling', async () => {
    const overflowing: string[] = [];
    await walk(375, async (page, name) => {
      if (!(await fitsWidth(page))) overflowing.push(name);
    });
    assert.deepEqual(overflowing, []);
  });

  browserTest('axe-core finds no serious or critical violation on the main pages, wide and narrow', async () => {
    const found: string[] = [];
    for (const width of [1280, 375]) {
      await walk(width, async (page, name) => {
        found.push(...(await seriousViolations(page)).map((v) => `${name} at ${width} px: ${v}`));
      });
    }
    assert.deepEqual(found, []);
  });

  browserTest('the console is keyboard usable: sign in and reach an event with Tab and Enter', async () => {
    const { context, page } = await openConsole(f.browser(), f.issuer());
    try {
      await page.getByLabel('Email').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('type')), 'email');
      // Tab to the admin token's form: Enter puts it in place and its field takes the focus.
      const toggle = page.getByRole('button', { name: 'Sign in with the admin token' });
      for (let i = 0; i < 6 && !(await toggle.evaluate((b) => b === document.activeElement)); i += 1) {
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      await page.getByLabel('Admin token').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'admin_token');
      await page.keyboard.type('test-admin-token-0123456789abcdef');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      const link = page.getByRole('link', { name: 'An Event With A Rather Long Name For A Small Phone Screen' });
      for (let i = 0; i < 10 && !(await link.evaluate((a) => a === document.activeElement)); i += 1) {
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: /An Event With/ }).waitFor();
    } finally {
      await context.close();
    }
  });

  browserTest(
    'console pages carry a strict CSP, load everything from the issuer, and break none of its rules',
    async () => {
      const { context, page } = await openConsole(f.browser(), f.issuer());
      const violations: string[] = [];
      const foreign: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      page.on('request', (r) => {
        if (!r.url().startsWith(f.issuer().url) && !r.url().startsWith('data:')) foreign.push(r.url());
      });
      try {
        const response = await page.goto(`${f.issuer().url}/console/`);
        const csp = response!.headers()['content-security-policy'] ?? '';
        const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
        assert.equal(scriptSrc.trim(), "'self'");
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
        assert.match(csp, /frame-ancestors 'none'/);
        assert.match(csp, /default-src 'none'/);
        await signIn(page);
        await page.goto(`${f.issuer().url}/console/#/events/${eid}`);
        await page.getByRole('heading', { level: 1, name: /An Event With/ }).waitFor();
        await page.getByRole('button', { name: 'New enrolment token' }).click();
        await page.getByRole('img', { name: 'Setup QR code' }).waitFor();
        await page.locator('.chart canvas').waitFor();
        await page.waitForTimeout(500);
        assert.deepEqual(violations, []);
        assert.deepEqual(foreign, []);
      } finally {
        await context.close();
      }
    },
  );
});
