import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { seriousViolations } from '../helpers/axe.ts';
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
describe('console in Chromium: the gate editor', () => {
  const f = consoleFixture();
  before(() => f.open());
  after(() => f.close());

  browserTest('declares a gate that admits some types, which then refuses the others, and removes it', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Gated Gala');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Grace Hopper', ticket_type: 'GA' }],
    });
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Gated Gala' }).click();
      const gates = page.getByRole('region', { name: 'Gates' });
      await gates.getByText('No gate declared').waitFor();

      await gates.getByLabel('Gate ID').fill('vip');
      await gates.getByLabel('Gate name').fill('VIP entrance');
      await gates.getByLabel('Admitted ticket types').fill('VIP, Crew, VIP');
      await gates.getByRole('button', { name: 'Save gate' }).click();
      await gates.getByText('Admits VIP, Crew').waitFor();
      assert.deepEqual((await admin<{ gates: unknown[] }>(issuer, 'GET', `/events/${eid}/gates`)).gates, [
        { gate_id: 'vip', name: 'VIP entrance', admits: ['VIP', 'Crew'] },
      ]);

      const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
      const scanner = await enrollWith(issuer, token);
      const refused = await checkIn(issuer, scanner, eid, tickets[0]!.tid, 'vip');
      assert.equal(refused.status, 403);

      page.once('dialog', (dialog) => void dialog.accept());
      await gates.getByRole('button', { name: 'Remove gate VIP entrance' }).click();
      await gates.getByText('No gate declared').waitFor();
      assert.equal((await checkIn(issuer, scanner, eid, tickets[0]!.tid, 'vip')).body.status, 'valid');
    } finally {
      await context.close();
    }
  });

  browserTest(
    'Inside now and the entries and exits per gate follow scans within 5 s; the capacity warning from 90 %',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Counted Concert');
      await admin(issuer, 'PUT', `/events/${eid}/gates/east`, { name: 'East gate', admits: null });
      await admin(issuer, 'PATCH', `/events/${eid}`, { capacity: 10 });
      const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
        tickets: Array.from({ length: 10 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })),
      });
      const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
      const scanner = await enrollWith(issuer, token);
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Counted Concert' }).click();
        const inside = page.getByTestId('count-inside');
        await page.waitForFunction(
          () => document.querySelector('[data-testid="count-inside"]')?.textContent === '0 of 10',
        );
        assert.equal(await page.getByText('Inside now').count(), 1);

        for (const ticket of tickets.slice(0, 9)) await checkIn(issuer, scanner, eid, ticket.tid, 'east');
        const started = Date.now();
        await page.waitForFunction(
          () => document.querySelector('[data-testid="count-inside"]')?.textContent === '9 of 10',
          null,
          { timeout: 5000 },
        );
        assert.ok(Date.now() - started <= 5000);
        await page.getByRole('status').filter({ hasText: '90 % of the capacity' }).waitFor({ timeout: 5000 });
        const gates = page.getByRole('region', { name: 'Gates' });
        await gates.getByText('9 entries · 0 exits').waitFor({ timeout: 5000 });

        const res = await fetch(`${issuer.url}/api/v1/tickets/check-out`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
          body: JSON.stringify({
            tid: tickets[0]!.tid,
            eid,
            scanned_at: new Date().toISOString(),
            scanner_id: scanner.scannerId,
            gate_id: 'east',
            idempotency_key: crypto.randomUUID(),
          }),
        });
        assert.equal(((await res.json()) as { status: string }).status, 'checked_out');
        await gates.getByText('9 entries · 1 exit', { exact: true }).waitFor({ timeout: 5000 });
        assert.equal(await inside.textContent(), '8 of 10');
        assert.equal(await page.getByText('% of the capacity').count(), 0, 'no warning below 90 %');
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the entry rules set re-entry and the capacity that Inside now reads against', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Rules Revue');
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Rules Revue' }).click();
      const rules = page.getByRole('region', { name: 'Entry rules' });
      const reentry = rules.getByLabel('Let holders who went out back in (re-entry)');
      assert.equal(await reentry.isChecked(), false, 'off by default');
      await reentry.check();
      await rules.getByLabel('Capacity').fill('250');
      await rules.getByRole('button', { name: 'Save entry rules' }).click();
      await rules.getByRole('status').filter({ hasText: 'Entry rules saved.' }).waitFor();
      const saved = await admin<{ reentry: boolean; capacity: number | null }>(issuer, 'GET', `/events/${eid}`);
      assert.deepEqual([saved.reentry, saved.capacity], [true, 250]);
      await page.getByTestId('count-inside').filter({ hasText: '0 of 250' }).waitFor({ timeout: 5000 });

      await rules.getByLabel('Capacity').fill('0');
      await rules.getByRole('button', { name: 'Save entry rules' }).click();
      assert.equal(
        await rules.getByLabel('Capacity').evaluate((input: HTMLInputElement) => input.validity.valid),
        false,
      );
      await rules.getByLabel('Capacity').fill('');
      await reentry.uncheck();
      await rules.getByRole('button', { name: 'Save entry rules' }).click();
      await rules.getByRole('status').filter({ hasText: 'Entry rules saved.' }).waitFor();
      await page.getByTestId('count-inside').filter({ hasText: /^0$/ }).waitFor({ timeout: 5000 });
      const cleared = await admin<{ reentry: boolean; capacity: number | null }>(issuer, 'GET', `/events/${eid}`);
      assert.deepEqual([cleared.reentry, cleared.capacity], [false, null]);
    } finally {
      await context.close();
    }
  });
  browserTest(
    'the gate editor offers the event’s ticket types to admit (in any case, as the issuer matches them), and warns of a type no ticket carries',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Typed Gala');
      await admin(issuer, 'POST', `/events/${eid}/tickets`, {
        tickets: ['GA', 'VIP', 'Crew', 'GA'].map((ticket_type, i) => ({ holder_name: `Guest ${i}`, ticket_type })),
      });
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Typed Gala' }).click();
        const gates = page.getByRole('region', { name: 'Gates' });
        const picker = gates.getByRole('group', { name: 'Ticket types of this event' });
        await picker.getByLabel('VIP', { exact: true }).waitFor();
        assert.deepEqual(await picker.locator('label').allTextContents(), ['Crew', 'GA', 'VIP']);
        const admits = gates.getByLabel('Admitted ticket types');
        await picker.getByLabel('VIP', { exact: true }).check();
        await picker.getByLabel('Crew', { exact: true }).check();
        assert.equal(await admits.inputValue(), 'VIP, Crew');
        await picker.getByLabel('VIP', { exact: true }).uncheck();
        assert.equal(await admits.inputValue(), 'Crew');

        // The issuer matches types ignoring case: vip is VIP; Staff is on no ticket.
        await admits.fill('vip, Staff');
        const warning = gates
          .getByRole('status')
          .filter({ hasText: 'No ticket of this event has the type Staff yet.' });
        await warning.waitFor();
        assert.doesNotMatch((await warning.textContent())!, /vip/i);
        assert.equal(await picker.getByLabel('VIP', { exact: true }).isChecked(), true, 'vip ticks VIP');
        assert.deepEqual(await seriousViolations(page), [], 'the picker and its warning pass axe');
        await picker.getByLabel('VIP', { exact: true }).uncheck();
        assert.equal(await admits.inputValue(), 'Staff');
        await admits.fill('VIP');
        assert.equal(await picker.getByLabel('VIP', { exact: true }).isChecked(), true, 'typing ticks the box');
        await warning.waitFor({ state: 'detached' });

        await gates.getByLabel('Gate ID').fill('vip');
        await gates.getByLabel('Gate name').fill('VIP entrance');
        await gates.getByRole('button', { name: 'Save gate' }).click();
        await gates.getByText('Admits VIP').waitFor();
        assert.deepEqual((await admin<{ gates: unknown[] }>(issuer, 'GET', `/events/${eid}/gates`)).gates, [
          { gate_id: 'vip', name: 'VIP entrance', admits: ['VIP'] },
        ]);
        assert.equal(await picker.getByRole('checkbox', { checked: true }).count(), 0, 'the form starts afresh');

        // A type that only arrives with an import is offered once it is imported.
        await page.getByLabel('Import tickets (CSV)').setInputFiles({
          name: 'press.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from('holder_name,ticket_type\nLois Lane,Press\n'),
        });
        await page.getByRole('button', { name: /^Import 1 ticket/ }).click();
        await picker.getByLabel('Press', { exact: true }).waitFor({ timeout: 5000 });
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'the enrolment form offers the declared gates; an undeclared gate is warned about before and after the token is made',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Declared Gala');
      await admin(issuer, 'PUT', `/events/${eid}/gates/north`, { name: 'North gate', admits: null });
      await admin(issuer, 'PUT', `/events/${eid}/gates/vip`, { name: 'VIP entrance', admits: ['VIP'] });
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Declared Gala' }).click();
        const setup = page.getByRole('region', { name: 'Set up a scanner' });
        const gate = setup.getByLabel('Gate (optional)');
        await page.waitForFunction(
          (input) => (input as HTMLInputElement | null)?.list?.options.length === 2,
          await gate.elementHandle(),
          { timeout: 5000 },
        );
        const offered = await gate.evaluate((input: HTMLInputElement) =>
          [...input.list!.options].map((option) => `${option.value}: ${option.label}`),
        );
        assert.deepEqual(offered.sort(), ['north: North gate', 'vip: VIP entrance']);
        await setup.getByText('leave it empty: no gate').waitFor();

        await gate.fill('north');
        await setup.getByText('Declared gate: North gate.').waitFor();
        await gate.fill('Nrth');
        const before = setup.getByRole('status').filter({ hasText: 'Nrth is not a declared gate' });
        await before.waitFor();
        assert.match((await before.textContent())!, /Declared gates: north \(North gate\), vip \(VIP entrance\)\./);
        assert.deepEqual(await seriousViolations(page), []);
        await gate.press('Escape');
        await setup.getByRole('button', { name: 'New enrolment token' }).click();
        await setup.getByRole('heading', { name: 'Setup codes for gate Nrth (not declared)' }).waitFor();
        await setup
          .getByRole('status')
          .filter({
            hasText:
              'Gate Nrth is not declared: a scanner enrolled with this code applies no gate’s admitted ticket types.',
          })
          .waitFor();

        // A declared gate typed in another case: said before, stored with the declared spelling.
        await gate.fill('VIP');
        await setup.getByText('Declared as vip (VIP entrance): the token will name vip.').waitFor();
        await gate.press('Escape');
        await setup.getByRole('button', { name: 'New enrolment token' }).click();
        await setup.getByRole('heading', { name: 'Setup codes for VIP entrance (vip)' }).waitFor();
        await setup.getByText('Stored as vip, the declared gate’s spelling.').waitFor();
        assert.equal(await setup.getByText('is not declared').count(), 0);
        const { enrollment_tokens: tokens } = await admin<{ enrollment_tokens: { gate_id: string }[] }>(
          issuer,
          'GET',
          `/events/${eid}/enrollment-tokens`,
        );
        assert.equal(tokens[0]!.gate_id, 'vip');
      } finally {
        await context.close();
      }
    },
  );
});
