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
  signInWithPassword,
} from './harness.ts';
import { addPerson, atIssuer, PASSWORD, screenshot } from './people-harness.ts';

browserSkipReason();

/** Opens every folded section of an event page (on a phone they start folded). */
async function unfold(page: Page): Promise<void> {
  const folded = page.locator('details:not([open]) > summary');
  while ((await folded.count()) > 0) await folded.first().click();
}

/** How many controls of a kind the page offers. */
const offered = (page: Page, role: 'button' | 'heading', name: string) =>
  page.getByRole(role, { name, exact: true }).count();

describe('console in Chromium: people, invitations, and what each role is offered', () => {
  const f = consoleFixture();
  let harbour = '';
  let winter = '';
  before(async () => {
    await f.open();
    if (browserSkipReason() !== undefined) return;
    harbour = await createEvent(f.issuer(), 'Harbour Lights');
    winter = await createEvent(f.issuer(), 'Winter Market');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(f.issuer(), 'POST', `/events/${harbour}/tickets`, {
      tickets: ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra'].map((holder_name) => ({
        holder_name,
        ticket_type: 'General admission',
      })),
    });
    // An entry, so that the scan log offers Annul entry to those who may annul.
    const { token } = await admin<{ token: string }>(f.issuer(), 'POST', `/events/${harbour}/enrollment-tokens`, {});
    await checkIn(f.issuer(), await enrollWith(f.issuer(), token), harbour, tickets[0]!.tid);
  });
  after(async () => f.close());

  /** An event page of Harbour Lights, every section open and the tickets listed. */
  async function openHarbour(page: Page): Promise<void> {
    await page.goto(`${f.issuer().url}/console/#/events/${harbour}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour Lights' }).waitFor();
    await unfold(page);
    await page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem').first().waitFor();
  }

  browserTest(
    'an owner invites a supervisor on the People page; the link sets a password; signed in, they are offered a supervisor’s controls on their event only',
    async () => {
      const owner = await openConsole(f.browser(), f.issuer());
      const invited = await openConsole(f.browser(), f.issuer(), { width: 375 });
      const p = owner.page;
      const q = invited.page;
      try {
        await signIn(p);
        await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
        await p.getByRole('heading', { level: 1, name: 'People' }).waitFor();
        await p.getByLabel('Email', { exact: true }).fill('sam@example.org');
        await p.getByLabel('Name', { exact: true }).fill('Sam Supervisor');
        await p.getByLabel('Role', { exact: true }).selectOption('supervisor');
        await p.getByRole('group', { name: 'Events' }).getByLabel('Harbour Lights').check();
        await p.getByRole('button', { name: 'Invite', exact: true }).click();
        const inviteUrl = await p.getByRole('textbox', { name: 'Invitation link' }).inputValue();
        assert.match(inviteUrl, /^http:\/\/127\.0\.0\.1\/console\/#invite=inv_.+/, 'BASE_URL, the console, the token');
        const row = p.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: 'Sam Supervisor' });
        await row.getByText('Role: supervisor · Events: Harbour Lights').waitFor();
        assert.deepEqual(await seriousViolations(p), [], 'the People page with a new invitation link');
        await screenshot(p, 'console-people');

        // The invited person opens the link on a phone and chooses a password.
        await q.goto(atIssuer(f.issuer(), inviteUrl));
        await q.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
        assert.deepEqual(await seriousViolations(q), [], 'the invitation page');
        assert.ok(await fitsWidth(q), 'the invitation page fits 375 px');
        const password = q.getByLabel('Password', { exact: true });
        const confirmation = q.getByLabel('Confirm password');
        await password.fill('too short');
        await confirmation.fill('too short');
        await q.getByRole('button', { name: 'Set password' }).click();
        await q.getByRole('alert').filter({ hasText: 'at least 12 characters' }).waitFor();
        await password.fill(PASSWORD);
        await confirmation.fill(`${PASSWORD}!`);
        await q.getByRole('button', { name: 'Set password' }).click();
        await q.getByRole('alert').filter({ hasText: 'differ' }).waitFor();
        await screenshot(q, 'console-invite-375');
        await confirmation.fill(PASSWORD);
        await q.getByRole('button', { name: 'Set password' }).click();

        // The sign-in follows, the email filled in and the invitation gone from the address.
        await q.getByText('Your password is set').waitFor();
        assert.equal(await q.getByLabel('Email').inputValue(), 'sam@example.org');
        assert.equal(new URL(q.url()).hash, '', 'the invitation token left the address');
        await q.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await q.getByRole('button', { name: 'Sign in', exact: true }).click();
        await q.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        const nav = q.getByRole('navigation', { name: 'Main' });
        await nav.getByText('Sam Supervisor (supervisor)').waitFor();
        for (const page of ['People', 'Audit', 'Signing keys', 'Webhooks']) {
          assert.equal(await nav.getByRole('link', { name: page }).count(), 0, `no ${page} for a supervisor`);
        }
        await q.getByRole('link', { name: 'Harbour Lights' }).waitFor();
        assert.equal(await q.getByRole('link', { name: 'Winter Market' }).count(), 0, 'only their own events');
        assert.equal(await offered(q, 'button', 'New event'), 0);

        // A supervisor revokes, sets up scanners and annuls; imports nothing and edits no rules.
        await openHarbour(q);
        await q.getByRole('button', { name: 'Annul entry' }).first().waitFor();
        await q.getByRole('button', { name: 'New enrolment token' }).waitFor();
        assert.ok((await offered(q, 'button', 'Revoke')) >= 4, 'Revoke on each ticket and the scanner');
        assert.equal(await q.getByLabel('Import tickets (CSV)').count(), 0, 'no import');
        for (const name of ['New ticket type', 'Save gate', 'Save entry rules', 'Reissue', 'Gate notes']) {
          assert.equal(await offered(q, 'button', name), 0, `no ${name} for a supervisor`);
        }
        assert.equal(await offered(q, 'heading', 'Entry rules'), 0);
        assert.deepEqual(await seriousViolations(q), [], 'a supervisor’s event page');
        assert.ok(await fitsWidth(q), 'a supervisor’s event page fits 375 px');
        await screenshot(q, 'console-supervisor-event-375');
        q.once('dialog', (dialog) => void dialog.accept());
        const grace = q.getByRole('list', { name: 'Tickets found' }).getByRole('listitem').filter({ hasText: 'Grace' });
        await grace.getByRole('button', { name: 'Revoke', exact: true }).click();
        await grace.getByText('revoked', { exact: true }).waitFor();

        // Another event: the issuer answers as for an event that does not exist, and the page says so.
        await q.goto(`${f.issuer().url}/console/#/events/${winter}`);
        await q.getByRole('alert').filter({ hasText: 'no event has this eid' }).waitFor();

        // The link works once.
        await q.getByRole('button', { name: 'Sign out' }).click();
        await q.goto(atIssuer(f.issuer(), inviteUrl));
        await password.fill(PASSWORD);
        await confirmation.fill(PASSWORD);
        await q.getByRole('button', { name: 'Set password' }).click();
        await q.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
      } finally {
        await owner.context.close();
        await invited.context.close();
      }
    },
  );

  browserTest(
    'a viewer is offered no Revoke; the owner changes the role on the People page; a refusal reads plainly; disabling signs them out at once',
    async () => {
      const vic = await addPerson(f.issuer(), {
        email: 'vic@example.org',
        name: 'Vic Viewer',
        role: 'viewer',
        events: [harbour],
      });
      const owner = await openConsole(f.browser(), f.issuer());
      const viewer = await openConsole(f.browser(), f.issuer());
      const p = owner.page;
      const v = viewer.page;
      v.on('dialog', (dialog) => void dialog.accept());
      p.on('dialog', (dialog) => void dialog.accept());
      try {
        await signInWithPassword(v, vic.email, PASSWORD);
        await v.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
        await openHarbour(v);
        assert.equal(await v.getByRole('button', { name: /Revoke/ }).count(), 0, 'no Revoke of any kind');
        for (const name of [
          'New enrolment token',
          'Annul entry',
          'Reissue',
          'Gate notes',
          'Save gate',
          'New ticket type',
        ]) {
          assert.equal(await offered(v, 'button', name), 0, `no ${name} for a viewer`);
        }
        assert.equal(await v.getByLabel('Import tickets (CSV)').count(), 0);
        assert.equal(await offered(v, 'heading', 'Set up a scanner'), 0);
        assert.equal(await offered(v, 'heading', 'Entry rules'), 0);
        await screenshot(v, 'console-viewer-event');

        // The owner makes them a supervisor on the People page; their next page offers Revoke.
        await signIn(p);
        await p.goto(`${f.issuer().url}/console/#/people`);
        const row = p.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: 'Vic Viewer' });
        await row.getByRole('button', { name: 'Change role of Vic Viewer' }).click();
        await row.getByLabel('Role', { exact: true }).selectOption('supervisor');
        assert.equal(await row.getByRole('group', { name: 'Events' }).getByLabel('Harbour Lights').isChecked(), true);
        assert.deepEqual(await seriousViolations(p), [], 'the People page with an editor open');
        await row.getByRole('button', { name: 'Save role' }).click();
        await row.getByText('Role: supervisor · Events: Harbour Lights').waitFor();
        await v.reload();
        await unfold(v);
        const alan = v.getByRole('list', { name: 'Tickets found' }).getByRole('listitem').filter({ hasText: 'Alan' });
        await alan.getByRole('button', { name: 'Revoke', exact: true }).waitFor();

        // Made a viewer again elsewhere: the Revoke still on screen is refused, and said so.
        await admin(f.issuer(), 'PATCH', `/users/${vic.user_id}`, { role: 'viewer' });
        await alan.getByRole('button', { name: 'Revoke', exact: true }).click();
        await alan.getByRole('alert').filter({ hasText: 'your role does not allow this' }).waitFor();

        // Disabled: the open console is signed out at its next refresh, and signing in is refused.
        await row.getByRole('button', { name: 'Disable Vic Viewer' }).click();
        await row.getByText('disabled', { exact: true }).waitFor();
        await v.getByText('Your session has ended').waitFor({ timeout: 10_000 });
        await signInWithPassword(v, vic.email, PASSWORD);
        await v.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();

        // Enabled, and a new invitation link (a forgotten password): it sets a new password.
        await row.getByRole('button', { name: 'Enable Vic Viewer' }).click();
        await row.getByRole('button', { name: 'Disable Vic Viewer' }).waitFor();
        await row.getByRole('button', { name: 'New invitation link for Vic Viewer' }).click();
        await p
          .getByRole('alertdialog', { name: 'Make a new invitation link for Vic Viewer?' })
          .getByRole('button', { name: 'Make a new link' })
          .click();
        const inviteUrl = await row.getByRole('textbox', { name: 'Invitation link' }).inputValue();
        await v.goto(atIssuer(f.issuer(), inviteUrl));
        await v.getByLabel('Password', { exact: true }).fill('a new password for vic');
        await v.getByLabel('Confirm password').fill('a new password for vic');
        await v.getByRole('button', { name: 'Set password' }).click();
        await v.getByText('Your password is set').waitFor();
        await v.getByLabel('Password', { exact: true }).fill('a new password for vic');
        await v.getByRole('button', { name: 'Sign in', exact: true }).click();
        await v.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
      } finally {
        await owner.context.close();
        await viewer.context.close();
      }
    },
  );

  browserTest('a manager is offered no People page; the People page passes axe and fits at 375 px', async () => {
    const mia = await addPerson(f.issuer(), { email: 'mia@example.org', name: 'Mia Manager', role: 'manager' });
    const manager = await openConsole(f.browser(), f.issuer());
    const owner = await openConsole(f.browser(), f.issuer(), { width: 375 });
    try {
      const m = manager.page;
      await signInWithPassword(m, mia.email, PASSWORD);
      const nav = m.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Audit' }).waitFor();
      await nav.getByRole('link', { name: 'Webhooks' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'People' }).count(), 0);
      await m.goto(`${f.issuer().url}/console/#/people`);
      await m.getByRole('alert').filter({ hasText: 'Your role (manager) does not allow this page' }).waitFor();

      const p = owner.page;
      await signIn(p);
      await p.goto(`${f.issuer().url}/console/#/people`);
      const row = p.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: 'Mia Manager' });
      await row.getByText('Role: manager · Events: All events').waitFor();
      await p.getByLabel('Role', { exact: true }).selectOption('viewer');
      await p.getByRole('group', { name: 'Events' }).waitFor();
      assert.deepEqual(await seriousViolations(p), [], 'the People page at 375 px');
      assert.ok(await fitsWidth(p), 'the People page fits 375 px');
      await screenshot(p, 'console-people-375');
    } finally {
      await manager.context.close();
      await owner.context.close();
    }
  });
});
