import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  openConsole,
  signIn,
  signInWithPassword,
} from './harness.ts';
import { addPerson, PASSWORD, screenshot } from './people-harness.ts';

browserSkipReason();

/** The trail's rows as shown: each cell's text by its column, and the entry's instant. */
async function rows(page: Page) {
  return page.locator('table.audit tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      at: tr.querySelector('time')?.getAttribute('datetime') ?? '',
      ...Object.fromEntries(
        // A cell's first line: the action's details follow it on lines of their own.
        [...tr.querySelectorAll('td')].map((td) => [
          td.dataset.label,
          (td as HTMLElement).innerText.trim().split('\n')[0],
        ]),
      ),
    })),
  ) as Promise<{ at: string; When: string; Who: string; Action: string; Target: string; Event: string; IP: string }[]>;
}

/** Newest first: no entry is later than the one above it. */
function assertNewestFirst(found: { at: string }[]): void {
  for (let i = 1; i < found.length; i += 1) {
    // Compared as instants: the issuer writes an instant without its milliseconds when they are 0.
    const [above, here] = [Date.parse(found[i - 1]!.at), Date.parse(found[i]!.at)];
    assert.ok(above >= here, `entry ${i} (${found[i]!.at}) is after the one above it`);
  }
}

describe('console in Chromium: the audit trail', () => {
  const f = consoleFixture();
  let harbour = '';
  let winter = '';
  before(async () => {
    await f.open();
    if (browserSkipReason() !== undefined) return;
    harbour = await createEvent(f.issuer(), 'Harbour Lights');
    winter = await createEvent(f.issuer(), 'Winter Market');
    await admin(f.issuer(), 'POST', `/events/${harbour}/tickets`, {
      tickets: [
        { holder_name: 'Ada Lovelace', ticket_type: 'VIP' },
        { holder_name: 'Grace Hopper', ticket_type: 'VIP' },
      ],
    });
    // More entries than a page holds, all older than what the manager does below.
    for (let capacity = 100; capacity < 155; capacity += 1) {
      await admin(f.issuer(), 'PATCH', `/events/${winter}`, { capacity });
    }
  });
  after(async () => f.close());

  browserTest(
    'a manager’s revoke is listed first, with their name; filters by event and by person; Load more pages back',
    async () => {
      const mia = await addPerson(f.issuer(), { email: 'mia@example.org', name: 'Mia Manager', role: 'manager' });
      const { context, page } = await openConsole(f.browser(), f.issuer());
      page.on('dialog', (dialog) => void dialog.accept());
      try {
        await signInWithPassword(page, mia.email, PASSWORD);
        await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        await page.getByRole('link', { name: 'Harbour Lights' }).click();
        const grace = page
          .getByRole('list', { name: 'Tickets found' })
          .getByRole('listitem')
          .filter({ hasText: 'Grace' });
        await grace.getByRole('button', { name: 'Revoke', exact: true }).click();
        await grace.getByText('revoked', { exact: true }).waitFor();
        const tid = (await grace.locator('code').innerText()).trim();

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
        await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
        await page.locator('table.audit tbody tr').first().waitFor();
        const first = await rows(page);
        assert.equal(first.length, 50, 'one page');
        assertNewestFirst(first);
        assert.equal(first[0]!.Action, 'ticket.revoke');
        assert.equal(first[0]!.Who, 'Mia Manager (signed in)');
        assert.equal(first[0]!.Target, tid);
        assert.equal(first[0]!.Event, 'Harbour Lights');
        assert.match(first[0]!.IP, /127\.0\.0\.1/);
        const signedIn = first.find((row) => row.Action === 'session.sign_in');
        assert.equal(signedIn?.Who, 'Mia Manager (signed in)');
        assert.deepEqual(await seriousViolations(page), [], 'the Audit page');
        await screenshot(page, 'console-audit');

        await page.getByRole('button', { name: 'Load more' }).click();
        await page.locator('table.audit tbody tr').nth(50).waitFor();
        const more = await rows(page);
        assert.ok(more.length > 50, 'an older page follows');
        assert.deepEqual(more.slice(0, 50), first, 'the first page stays as it was');
        assertNewestFirst(more);
        assert.ok(more.slice(50).some((row) => row.Action === 'event.update' && row.Who === 'Admin token'));

        await page.getByLabel('Event', { exact: true }).selectOption({ label: 'Harbour Lights' });
        await page
          .getByRole('status')
          .filter({ hasText: /^\d+ entries shown/ })
          .waitFor();
        await page.waitForFunction(() =>
          [...document.querySelectorAll('table.audit td[data-label="Event"]')].every(
            (td) => (td as HTMLElement).innerText === 'Harbour Lights',
          ),
        );
        const ofHarbour = await rows(page);
        assert.ok(ofHarbour.some((row) => row.Action === 'ticket.revoke'));
        assert.ok(!ofHarbour.some((row) => row.Action === 'event.update'), 'no change of Winter Market');

        await page.getByLabel('Event', { exact: true }).selectOption({ label: 'All events' });
        await page.getByLabel('Person').selectOption({ label: 'Mia Manager' });
        await page.waitForFunction(() =>
          [...document.querySelectorAll('table.audit td[data-label="Who"]')].every((td) =>
            (td as HTMLElement).innerText.startsWith('Mia Manager'),
          ),
        );
        const ofMia = (await rows(page)).map((row) => row.Action);
        assert.ok(ofMia.includes('ticket.revoke') && ofMia.includes('session.sign_in'), ofMia.join(', '));
        assert.ok(!ofMia.includes('event.update'));
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the Audit page fits 375 px and passes axe; a viewer is offered no Audit page', async () => {
    const vic = await addPerson(f.issuer(), {
      email: 'vic@example.org',
      name: 'Vic Viewer',
      role: 'viewer',
      events: [harbour],
    });
    const owner = await openConsole(f.browser(), f.issuer(), { width: 375 });
    const viewer = await openConsole(f.browser(), f.issuer());
    try {
      const p = owner.page;
      await signIn(p);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
      await p.locator('table.audit tbody tr').first().waitFor();
      // An owner picks among everyone by name, before they appear in the trail.
      await p.getByLabel('Person').locator('option', { hasText: 'Vic Viewer' }).waitFor({ state: 'attached' });
      assert.deepEqual(await seriousViolations(p), [], 'the Audit page at 375 px');
      assert.ok(await fitsWidth(p), 'the Audit page fits 375 px');
      await screenshot(p, 'console-audit-375');

      const v = viewer.page;
      await signInWithPassword(v, vic.email, PASSWORD);
      await v.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      assert.equal(await v.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).count(), 0);
      await v.goto(`${f.issuer().url}/console/#/audit`);
      await v.getByRole('alert').filter({ hasText: 'Your role (viewer) does not allow this page' }).waitFor();
    } finally {
      await owner.context.close();
      await viewer.context.close();
    }
  });
});
