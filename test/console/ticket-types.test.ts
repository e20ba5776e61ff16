import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { admin, browserSkipReason, browserTest, consoleFixture, openConsole, signIn } from './harness.ts';

browserSkipReason();

interface TicketType {
  ticket_type: string;
  declared: boolean;
  valid_days: string[] | null;
  hours: { from: string; until: string } | null;
  max_entries: number | null;
  max_entries_per_day: number | null;
  max_days: number | null;
  reentry: string | null;
  min_minutes_between_entries: number | null;
  attention: boolean;
  checkin_text: string | null;
}

/** Wednesday 5 June 2030, 18:00 in Berlin, for three days. */
const EVENT = { event_date: '2030-06-05T16:00:00Z', ends_at: '2030-06-07T21:00:00Z' };

describe('console in Chromium: ticket types and the event’s calendar', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  /** An event with tickets of two types, none declared, and the console open on it at `width`. */
  async function eventPage(name: string, width = 1280) {
    const issuer = f.issuer();
    const { eid } = await admin<{ eid: string }>(issuer, 'POST', '/events', { name, ...EVENT });
    await admin(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [
        { holder_name: 'Ada Lovelace', ticket_type: 'Day pass' },
        { holder_name: 'Alan Turing', ticket_type: 'Weekend' },
      ],
    });
    const opened = await openConsole(f.browser(), issuer, { width });
    await signIn(opened.page);
    await opened.page.getByRole('link', { name }).click();
    await opened.page.getByRole('heading', { level: 1, name }).waitFor();
    await unfold(opened.page);
    return { eid, ...opened };
  }

  /** On a phone the long sections start folded: the ones under test are opened. */
  async function unfold(page: Page) {
    for (const title of ['Entry rules', 'Ticket types']) {
      const summary = page.locator('summary', { hasText: title });
      if (!(await summary.evaluate((node) => (node.parentElement as HTMLDetailsElement).open))) await summary.click();
    }
  }

  const typesOf = async (eid: string) =>
    (await admin<{ ticket_types: TicketType[] }>(f.issuer(), 'GET', `/events/${eid}/ticket-types`)).ticket_types;
  const rulesOf = (types: Locator, name: string) =>
    types
      .getByRole('list', { name: `Rules of ${name}`, exact: true })
      .getByRole('listitem')
      .allTextContents();
  /** What a control's aria-describedby points at, in words (its hint and any problem shown). */
  const description = (control: Locator) =>
    control.evaluate((node) =>
      (node.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );

  /** Every axe-core violation, of any impact, in the two sections under test. */
  async function sectionViolations(page: Page): Promise<string[]> {
    assert.deepEqual(await seriousViolations(page), [], 'nothing serious on the whole page');
    return page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (context: unknown) => Promise<{ violations: unknown[] }> } }).axe;
      const sections = [...document.querySelectorAll('section')].filter((section) =>
        ['Entry rules', 'Ticket types'].includes(section.querySelector('h2')?.textContent ?? ''),
      );
      const { violations } = await axe.run({ include: sections });
      return violations.map((v) => JSON.stringify(v));
    });
  }

  browserTest(
    'the event’s time zone, day start and automatic exit are saved; an unknown zone shows the issuer’s words',
    async () => {
      const { eid, context, page } = await eventPage('Harbour Days');
      try {
        const rules = page.getByRole('region', { name: 'Entry rules' });
        const zone = rules.getByLabel('Time zone');
        assert.equal(await zone.inputValue(), 'UTC', 'the default');
        assert.equal(await rules.getByLabel('Day starts at').inputValue(), '00:00');
        const offered = await zone.evaluate((input: HTMLInputElement) =>
          [...input.list!.options].map((option) => option.value),
        );
        assert.ok(offered.includes('Europe/Berlin') && offered.includes('UTC') && offered.length > 300);

        await zone.fill('Mars/Olympus_Mons');
        await rules.getByRole('button', { name: 'Save entry rules' }).click();
        const alert = rules.getByRole('alert');
        await alert.filter({ hasText: 'Entry rules not saved:' }).waitFor();
        assert.match(
          (await alert.textContent())!,
          /Time zone: must be an IANA time zone such as Europe\/Berlin, or UTC\./,
        );
        assert.equal(await zone.getAttribute('aria-invalid'), 'true');
        assert.match(await description(zone), /Time zone: must be an IANA time zone/);
        assert.deepEqual(await sectionViolations(page), [], 'the refused form passes axe');
        assert.equal((await admin<{ timezone: string }>(f.issuer(), 'GET', `/events/${eid}`)).timezone, 'UTC');

        await zone.fill('Europe/Berlin');
        await rules.getByLabel('Day starts at').fill('06:00');
        await rules.getByLabel('Count everyone out when a day starts (automatic exit)').check();
        await rules.getByRole('button', { name: 'Save entry rules' }).click();
        await rules.getByRole('status').filter({ hasText: 'Entry rules saved.' }).waitFor();
        assert.equal(await zone.getAttribute('aria-invalid'), null, 'the problem is gone once saved');
        assert.equal(await rules.getByRole('alert').count(), 0);
        const saved = await admin<{ timezone: string; day_starts_at: string; auto_exit: boolean }>(
          f.issuer(),
          'GET',
          `/events/${eid}`,
        );
        assert.deepEqual([saved.timezone, saved.day_starts_at, saved.auto_exit], ['Europe/Berlin', '06:00', true]);
        const types = page.getByRole('region', { name: 'Ticket types' });
        await types.getByText('Days and hours are read in Europe/Berlin; each event day starts at 06:00.').waitFor();
        await types
          .getByText(
            'The event has an end: a type without valid days enters from the day of its date to the day of its end.',
          )
          .waitFor();

        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'Harbour Days' }).waitFor();
        assert.equal(await rules.getByLabel('Time zone').inputValue(), 'Europe/Berlin');
        assert.equal(await rules.getByLabel('Day starts at').inputValue(), '06:00');
        assert.equal(await rules.getByLabel('Count everyone out when a day starts (automatic exit)').isChecked(), true);
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'a ticket type is declared with days, hours, a limit and re-entry, listed in words, changed, refused, removed',
    async () => {
      const { eid, context, page } = await eventPage('Dock Festival');
      try {
        await admin(f.issuer(), 'PATCH', `/events/${eid}`, { timezone: 'Europe/Berlin', day_starts_at: '06:00' });
        await page.reload();
        const types = page.getByRole('region', { name: 'Ticket types' });
        // Both labels found on tickets are listed, not declared, with the defaults in words.
        await types.getByRole('list', { name: 'Rules of Weekend' }).waitFor();
        assert.deepEqual(await rulesOf(types, 'Day pass'), [
          'Every day',
          'All day',
          'No entry limit',
          're-entry: event default (none)',
        ]);
        assert.equal(await types.getByText('not declared: no rules of its own').count(), 2);
        assert.equal(await types.getByRole('button', { name: /^Remove ticket type/ }).count(), 0);

        assert.equal(await types.getByRole('form').count(), 0, 'the editor opens when asked for');
        await types.getByRole('button', { name: 'New ticket type' }).click();
        const form = types.getByRole('form', { name: 'Declare a ticket type' });
        await form.getByLabel('Ticket type', { exact: true }).fill('Day pass');
        await form.getByRole('button', { name: 'Add a day' }).click();
        // The first day offered is the event's first day there: 18:00 in Berlin on Wednesday 5 June.
        assert.equal(await form.getByLabel('Valid day 1', { exact: true }).inputValue(), '2030-06-05');
        await form.getByRole('button', { name: 'Add a day' }).click();
        assert.equal(await form.getByLabel('Valid day 2', { exact: true }).inputValue(), '2030-06-06');
        await form.getByRole('button', { name: 'Remove valid day 1' }).click();
        assert.equal(await form.getByLabel('Valid day 1', { exact: true }).inputValue(), '2030-06-06');
        assert.equal(await form.getByLabel('Valid day 2', { exact: true }).count(), 0);
        await form.getByLabel('From').fill('10:00');
        await form.getByLabel('Until').fill('18:00');
        await form.getByLabel('Max entries', { exact: true }).fill('2');
        await form.getByLabel('Re-entry').selectOption({ label: 'Any time (wristbands, no exit scans)' });
        await form.getByLabel('Minutes between entries').fill('30');
        await form.getByLabel('Check-in text').fill('Green wristband');
        await form.getByRole('button', { name: 'Save ticket type' }).click();
        await types.getByRole('status').filter({ hasText: 'Ticket type Day pass saved.' }).waitFor();
        await types.getByRole('button', { name: 'Remove ticket type Day pass' }).waitFor();
        assert.deepEqual(await rulesOf(types, 'Day pass'), [
          'Thu 6 Jun only',
          '10:00–18:00',
          '2 entries',
          're-entry: any time',
          '30 min between entries',
          'Check-in text: Green wristband',
        ]);
        const declared = (await typesOf(eid)).find((type) => type.ticket_type === 'Day pass')!;
        assert.deepEqual(declared, {
          ticket_type: 'Day pass',
          declared: true,
          valid_days: ['2030-06-06'],
          hours: { from: '10:00', until: '18:00' },
          max_entries: 2,
          max_entries_per_day: null,
          max_days: null,
          reentry: 'any',
          min_minutes_between_entries: 30,
          attention: false,
          checkin_text: 'Green wristband',
        });
        assert.equal(await types.getByRole('form').count(), 0, 'the editor closes once saved');

        // Changed: the editor loads the type's rules, the label stays.
        await types.getByRole('button', { name: 'Change rules of Day pass' }).click();
        const change = types.getByRole('form', { name: 'Change ticket type Day pass' });
        assert.equal(await change.getByLabel('Ticket type', { exact: true }).getAttribute('readonly'), '');
        assert.equal(await change.getByLabel('Valid day 1', { exact: true }).inputValue(), '2030-06-06');
        assert.equal(await change.getByLabel('From').inputValue(), '10:00');
        assert.equal(await change.getByLabel('Max entries', { exact: true }).inputValue(), '2');
        assert.equal(await change.getByLabel('Re-entry').inputValue(), 'any');
        await change.getByRole('button', { name: 'Add a day' }).click();
        assert.equal(await change.getByLabel('Valid day 2', { exact: true }).inputValue(), '2030-06-07');
        await change.getByLabel('Max entries per day').fill('1');
        await change.getByLabel('Max days').fill('2');
        await change.getByLabel('Minutes between entries').fill('');
        await change.getByLabel('Needs attention at the gate').check();
        await change.getByRole('button', { name: 'Save ticket type' }).click();
        await types.getByRole('status').filter({ hasText: 'Ticket type Day pass saved.' }).waitFor();
        await types.getByText('Attention at the gate', { exact: true }).waitFor();
        assert.equal((await typesOf(eid)).find((type) => type.ticket_type === 'Day pass')!.max_days, 2);
        assert.deepEqual(await rulesOf(types, 'Day pass'), [
          'Thu 6 Jun, Fri 7 Jun',
          '10:00–18:00',
          '2 entries, 1 a day, any 2 days',
          're-entry: any time',
          'Attention at the gate',
          'Check-in text: Green wristband',
        ]);

        // Refused: 18:00 to 10:00 is out of order in a day that starts at 06:00; the issuer says so.
        await types.getByRole('button', { name: 'Change rules of Day pass' }).click();
        await change.getByLabel('From').fill('18:00');
        await change.getByLabel('Until').fill('10:00');
        await change.getByRole('button', { name: 'Save ticket type' }).click();
        const refused = types.getByRole('alert').filter({ hasText: 'Ticket type Day pass not saved:' });
        await refused.waitFor();
        assert.match(
          (await refused.textContent())!,
          /Hours: from must come before until in the event day, which starts at 06:00\./,
        );
        assert.equal(await change.getByLabel('From').getAttribute('aria-invalid'), 'true');
        assert.match(await description(change.getByLabel('Until')), /Hours: from must come before until/);
        assert.deepEqual(await sectionViolations(page), [], 'the editor with a problem shown passes axe');
        assert.deepEqual(
          (await typesOf(eid)).find((type) => type.ticket_type === 'Day pass')!.hours,
          { from: '10:00', until: '18:00' },
          'nothing changed',
        );
        await change.getByRole('button', { name: 'Cancel' }).click();
        assert.equal(await types.getByRole('alert').count(), 0);
        await types.getByRole('button', { name: 'New ticket type' }).click();
        assert.equal(await form.getByLabel('From').getAttribute('aria-invalid'), null, 'the problem is gone');
        assert.equal(await form.getByLabel('From').inputValue(), '', 'the form starts afresh');
        await form.getByRole('button', { name: 'Cancel' }).click();

        // Removed after a confirmation: dismissed, nothing happens; accepted, the label stays, undeclared.
        page.once('dialog', (dialog) => void dialog.dismiss());
        await types.getByRole('button', { name: 'Remove ticket type Day pass' }).click();
        assert.equal((await typesOf(eid)).find((type) => type.ticket_type === 'Day pass')!.declared, true);
        page.once('dialog', (dialog) => {
          assert.match(dialog.message(), /Remove the rules of Day pass\?/);
          void dialog.accept();
        });
        await types.getByRole('button', { name: 'Remove ticket type Day pass' }).click();
        await types.getByRole('status').filter({ hasText: 'Ticket type Day pass removed.' }).waitFor();
        assert.equal(
          await types.getByRole('button', { name: 'Remove ticket type Day pass' }).count(),
          0,
          'announced once the list shows it',
        );
        assert.deepEqual(await rulesOf(types, 'Day pass'), [
          'Every day',
          'All day',
          'No entry limit',
          're-entry: event default (none)',
        ]);
        assert.equal((await typesOf(eid)).find((type) => type.ticket_type === 'Day pass')!.declared, false);
        assert.deepEqual(await sectionViolations(page), []);
      } finally {
        await context.close();
      }
    },
  );

  /** A declared type with every rule, its editor open: at `width`, it fits, passes axe, and is pictured. */
  async function showcase(width: number, picture: string) {
    const { eid, context, page } = await eventPage(`A Weekend By The Harbour With A Long Name (${width})`, width);
    try {
      await admin(f.issuer(), 'PATCH', `/events/${eid}`, { timezone: 'Europe/Berlin', day_starts_at: '06:00' });
      await admin(f.issuer(), 'PUT', `/events/${eid}/ticket-types/Weekend`, {
        valid_days: ['2030-06-06', '2030-06-07', '2030-06-08'],
        hours: { from: '10:00', until: '02:00' },
        max_entries_per_day: 1,
        reentry: 'after_exit',
        min_minutes_between_entries: 90,
        attention: true,
        checkin_text: 'Check the photo ID against the name printed on the wristband',
      });
      await page.reload();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await unfold(page);
      const types = page.getByRole('region', { name: 'Ticket types' });
      await types.getByRole('button', { name: 'Change rules of Weekend' }).click();
      await types
        .getByRole('form', { name: 'Change ticket type Weekend' })
        .getByLabel('Valid day 3', { exact: true })
        .waitFor();
      assert.deepEqual(await rulesOf(types, 'Weekend'), [
        'Thu 6 Jun – Sat 8 Jun',
        '10:00–02:00',
        '1 entry a day',
        're-entry: after an exit',
        '1 h 30 min between entries',
        'Attention at the gate',
        'Check-in text: Check the photo ID against the name printed on the wristband',
      ]);
      assert.equal(await fitsWidth(page, width), true, `nothing overflows ${width} px`);
      assert.deepEqual(await sectionViolations(page), []);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: join(tmpdir(), picture), fullPage: true });
    } finally {
      await context.close();
    }
  }

  browserTest('at desktop width the ticket types and their editor fit and pass axe', () =>
    showcase(1280, 'console-ticket-types.png'),
  );

  browserTest('at 375 px the ticket types and their editor fit without sideways scrolling', () =>
    showcase(375, 'console-ticket-types-375.png'),
  );
});
