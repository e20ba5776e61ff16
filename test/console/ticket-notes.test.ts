import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { seriousViolations } from '../helpers/axe.ts';
import { admin, browserSkipReason, browserTest, consoleFixture, createEvent, openConsole, signIn } from './harness.ts';

browserSkipReason();

interface Ticket {
  tid: string;
  holder_name: string;
  valid_from: string | null;
  attention: boolean;
  checkin_text: string | null;
}

describe('console in Chromium: a ticket’s valid_from and notes for the gate', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  async function eventPage(name: string) {
    const eid = await createEvent(f.issuer(), name);
    const opened = await openConsole(f.browser(), f.issuer());
    await signIn(opened.page);
    await opened.page.getByRole('link', { name }).click();
    await opened.page.getByRole('heading', { level: 1, name }).waitFor();
    return { eid, ...opened };
  }
  const tickets = async (eid: string) =>
    (await admin<{ tickets: Ticket[] }>(f.issuer(), 'GET', `/events/${eid}/tickets`)).tickets;

  browserTest(
    'a CSV with valid_from, attention and checkin_text shows them before the import, and the tickets carry them',
    async () => {
      const { eid, context, page } = await eventPage('Notes Import Fest');
      try {
        const csv = [
          'holder_name,ticket_type,valid_from,attention,checkin_text',
          'Ada Lovelace,Weekend,,Yes,Wheelchair: ramp at gate B',
          'Alan Turing,Sunday,2030-06-07T06:00:00Z,no,',
          'Grace Hopper,Weekend,,0,Collect the press badge',
        ].join('\n');
        await page.getByLabel('Import tickets (CSV)').setInputFiles({
          name: 'notes.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(csv, 'utf8'),
        });
        const preview = page.getByRole('table', { name: 'First 3 rows of notes.csv' });
        await preview.waitFor();
        const rows = await preview.getByRole('row').allTextContents();
        assert.equal(rows[0], 'LineHolderTypeExpiresValid fromGate notes');
        assert.match(rows[1]!, /^2Ada LovelaceWeekendneverat onceAttention: Wheelchair: ramp at gate B$/);
        assert.match(rows[2]!, /^3Alan TuringSundaynever.*2030.*—$/);
        assert.match(rows[3]!, /Collect the press badge$/);
        await page.getByRole('button', { name: 'Import 3 tickets' }).click();
        await page.getByRole('status').filter({ hasText: 'Imported 3 tickets' }).waitFor();
        const byName = new Map((await tickets(eid)).map((t) => [t.holder_name, t]));
        assert.deepEqual(
          ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'].map((name) => {
            const t = byName.get(name)!;
            return [t.valid_from, t.attention, t.checkin_text];
          }),
          [
            [null, true, 'Wheelchair: ramp at gate B'],
            ['2030-06-07T06:00:00Z', false, null],
            [null, false, 'Collect the press badge'],
          ],
        );
      } finally {
        await context.close();
      }
    },
  );

  browserTest('a CSV whose attention is not a yes or a no names the line and imports nothing', async () => {
    const { eid, context, page } = await eventPage('Notes Problem Fest');
    try {
      await page.getByLabel('Import tickets (CSV)').setInputFiles({
        name: 'bad.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('holder_name,ticket_type,attention\nAda,GA,maybe\n', 'utf8'),
      });
      await page.getByRole('alert').getByText('Line 2: attention "maybe" is not one of').waitFor();
      assert.equal((await tickets(eid)).length, 0);
    } finally {
      await context.close();
    }
  });

  browserTest('"Gate notes" on a ticket row sets attention and the check-in text, and the row shows them', async () => {
    const { eid, context, page } = await eventPage('Notes Edit Fest');
    try {
      const ticket = await admin<Ticket>(f.issuer(), 'POST', `/events/${eid}/tickets`, {
        holder_name: 'Katherine Johnson',
        ticket_type: 'GA',
        valid_from: '2030-06-06T08:00:00Z',
      });
      await page.getByLabel('Search tickets').fill('johnson');
      const row = page
        .getByRole('list', { name: 'Tickets found' })
        .getByRole('listitem')
        .filter({ hasText: 'Katherine Johnson' });
      await row.getByText(/Valid from .*2030/).waitFor();
      assert.equal(await row.getByText('Attention at the gate').count(), 0);

      const open = row.getByRole('button', { name: 'Gate notes' });
      await open.click();
      assert.equal(await open.getAttribute('aria-expanded'), 'true');
      const form = row.getByRole('form', { name: 'Gate notes of Katherine Johnson' });
      await form.getByLabel('Needs attention at the gate').check();
      await form.getByLabel('Check-in text').fill('  Speaker: take her to the green room  ');
      assert.deepEqual(await seriousViolations(page), [], 'the open editor passes axe');
      await form.getByRole('button', { name: 'Save notes' }).click();
      await row.getByText('Notes saved').waitFor();
      await row.getByText('Attention at the gate').waitFor();
      await row.getByText('Check-in text: Speaker: take her to the green room').waitFor();
      let stored = await admin<Ticket>(f.issuer(), 'GET', `/tickets/${ticket.tid}`);
      assert.deepEqual([stored.attention, stored.checkin_text], [true, 'Speaker: take her to the green room']);

      // Cleared again: no attention, no text.
      await row.getByRole('button', { name: 'Gate notes' }).click();
      const again = row.getByRole('form', { name: 'Gate notes of Katherine Johnson' });
      assert.equal(await again.getByLabel('Check-in text').inputValue(), 'Speaker: take her to the green room');
      await again.getByLabel('Needs attention at the gate').uncheck();
      await again.getByLabel('Check-in text').fill('');
      await again.getByRole('button', { name: 'Save notes' }).click();
      await row.getByText('Notes saved').waitFor();
      await row.getByText('Attention at the gate').waitFor({ state: 'detached' });
      stored = await admin<Ticket>(f.issuer(), 'GET', `/tickets/${ticket.tid}`);
      assert.deepEqual([stored.attention, stored.checkin_text], [false, null]);
    } finally {
      await context.close();
    }
  });
});
