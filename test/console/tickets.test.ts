import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { admin, browserSkipReason, browserTest, consoleFixture, createEvent, openConsole, signIn } from './harness.ts';

browserSkipReason();

/** Uploads a CSV through the labelled file input. */
async function importCsv(page: Page, text: string): Promise<void> {
  await page.getByLabel('Import tickets (CSV)').setInputFiles({
    name: 'tickets.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(text, 'utf8'),
  });
}

const issued = async (f: ReturnType<typeof consoleFixture>, eid: string) =>
  (await admin<{ counters: { issued: number } }>(f.issuer(), 'GET', `/events/${eid}`)).counters.issued;

describe('console in Chromium: tickets', () => {
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

  browserTest(
    'a CSV of 100 rows is shown first, then imported: "Imported 100 tickets" and the counter says 100',
    async () => {
      const { eid, context, page } = await eventPage('Import Fest');
      try {
        const rows = Array.from({ length: 100 }, (_, i) => `"Guest ${i + 1}, Jr.",${i % 2 ? 'GA' : 'VIP'}`);
        await importCsv(page, ['holder_name,ticket_type', ...rows].join('\r\n') + '\r\n');
        await page.getByText('tickets.csv: 100 tickets to import.').waitFor();
        const first = page.getByRole('table', { name: 'First 5 rows of tickets.csv' });
        assert.deepEqual((await first.getByRole('row').allTextContents()).slice(0, 3), [
          'LineHolderTypeExpires',
          '2Guest 1, Jr.VIPnever',
          '3Guest 2, Jr.GAnever',
        ]);
        await page.getByText('This file has no external_id column').waitFor();
        assert.equal(await issued(f, eid), 0, 'nothing is created before the organizer confirms');
        assert.deepEqual(await seriousViolations(page), [], 'the preview passes axe');
        await page.getByRole('button', { name: 'Import 100 tickets' }).click();
        await page.getByRole('status').filter({ hasText: 'Imported 100 tickets' }).waitFor();
        assert.equal(await issued(f, eid), 100);
        await page.waitForFunction(() => document.querySelector('[data-testid="count-issued"]')?.textContent === '100');
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'Cancel imports nothing; importing the same CSV twice with external_id creates its tickets once',
    async () => {
      const { eid, context, page } = await eventPage('Twice Fest');
      try {
        const csv = [
          'external_id,holder_name,ticket_type,expires_at',
          'ORD-1,José Núñez,VIP,2030-07-01T23:00:00Z',
          'ORD-2,Ada Lovelace,GA,',
          'ORD-3,Alan Turing,GA,',
        ].join('\n');
        await importCsv(page, csv);
        const preview = page.getByRole('table', { name: 'First 3 rows of tickets.csv' });
        await preview.getByRole('cell', { name: 'ORD-1' }).waitFor();
        assert.equal(await preview.getByRole('columnheader', { name: 'External id' }).count(), 1);
        await page.getByText('Tickets whose external_id this event already holds are skipped').waitFor();
        await page.getByRole('button', { name: 'Cancel' }).click();
        await page.getByText('Nothing was imported from tickets.csv.').waitFor();
        assert.equal(await page.getByRole('button', { name: /^Import \d/ }).count(), 0);
        assert.equal(await issued(f, eid), 0);

        await importCsv(page, csv);
        await page.getByRole('button', { name: 'Import 3 tickets' }).click();
        await page.getByRole('status').filter({ hasText: 'Imported 3 tickets' }).waitFor();
        assert.equal(await issued(f, eid), 3);
        const { tickets } = await admin<{ tickets: { holder_name: string; external_id: string | null }[] }>(
          f.issuer(),
          'GET',
          `/events/${eid}/tickets`,
        );
        assert.deepEqual(tickets.map((t) => t.external_id).sort(), ['ORD-1', 'ORD-2', 'ORD-3']);

        // The same file again, and then with one more line: only the new line makes a ticket.
        await importCsv(page, csv);
        await page.getByRole('button', { name: 'Import 3 tickets' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Imported 0 tickets; 3 already imported, skipped.' })
          .waitFor();
        await importCsv(page, `${csv}\nORD-4,Grace Hopper,GA,`);
        await page.getByRole('button', { name: 'Import 4 tickets' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Imported 1 tickets; 3 already imported, skipped.' })
          .waitFor();
        assert.equal(await issued(f, eid), 4);
        await page.waitForFunction(() => document.querySelector('[data-testid="count-issued"]')?.textContent === '4');
      } finally {
        await context.close();
      }
    },
  );

  browserTest('a CSV that repeats an external_id names both lines and imports nothing', async () => {
    const { eid, context, page } = await eventPage('Repeat Fest');
    try {
      await importCsv(page, 'holder_name,ticket_type,external_id\nAda,GA,A-1\nAlan,GA,A-2\nGrace,GA,A-1\nKen,GA, \n');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const text = (await alert.textContent()) ?? '';
      assert.match(text, /Line 4: external_id "A-1" is on line 2 too/);
      assert.match(text, /Line 5: external_id is empty/);
      assert.match(text, /Nothing was imported/);
      assert.equal(await page.getByRole('button', { name: /^Import \d/ }).count(), 0);
      assert.equal(await issued(f, eid), 0);
    } finally {
      await context.close();
    }
  });

  browserTest('a CSV with bad lines names each line and imports nothing', async () => {
    const { eid, context, page } = await eventPage('Bad Lines Fest');
    try {
      const csv = [
        'holder_name,ticket_type,expires_at',
        'Ada Lovelace,GA,',
        ',GA,',
        'Alan Turing,VIP,2030-07-01T23:00:00Z',
        'Grace Hopper,GA,next tuesday',
        'Only one field',
        'Edsger Dijkstra,GA,',
      ].join('\n');
      await importCsv(page, csv);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const text = (await alert.textContent()) ?? '';
      assert.match(text, /Nothing was imported/);
      assert.match(text, /Line 3: holder_name is empty/);
      assert.match(text, /Line 5: expires_at "next tuesday"/);
      assert.match(text, /Line 6: expected 3 fields/);
      assert.doesNotMatch(text, /Line (2|4|7):/);
      assert.equal(await issued(f, eid), 0);
    } finally {
      await context.close();
    }
  });

  browserTest(
    'search asks the server, matches holder names in any case and tids; "Revoke" asks first, then the row shows revoked',
    async () => {
      const { eid, context, page } = await eventPage('Search Fest');
      try {
        const { tickets } = await admin<{ tickets: { tid: string; holder_name: string }[] }>(
          f.issuer(),
          'POST',
          `/events/${eid}/tickets`,
          {
            tickets: [
              ...Array.from({ length: 60 }, (_, i) => ({ holder_name: `Filler ${i}`, ticket_type: 'GA' })),
              { holder_name: 'Ada Lovelace', ticket_type: 'VIP' },
              { holder_name: 'Alan Turing', ticket_type: 'GA' },
            ],
          },
        );
        const search = page.getByLabel('Search tickets');
        const asked = page.waitForRequest((r) => r.url().includes('/tickets?') && r.url().includes('q=LOVELACE'));
        await search.fill('LOVELACE');
        await asked;
        const results = page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem');
        await page.waitForFunction(() => document.querySelectorAll('ul.tickets > li').length === 1);
        const row = results.filter({ hasText: 'Ada Lovelace' });
        assert.match((await row.textContent()) ?? '', /valid/);

        let asked2 = '';
        page.once('dialog', (dialog) => {
          asked2 = dialog.message();
          void dialog.dismiss();
        });
        await row.getByRole('button', { name: 'Revoke' }).click();
        assert.match(asked2, /Revoke Ada Lovelace/);
        const lovelace = tickets.find((t) => t.holder_name === 'Ada Lovelace')!;
        assert.equal((await admin<{ status: string }>(f.issuer(), 'GET', `/tickets/${lovelace.tid}`)).status, 'valid');

        page.once('dialog', (dialog) => void dialog.accept());
        await row.getByRole('button', { name: 'Revoke' }).click();
        await row.getByText('revoked', { exact: true }).waitFor();
        assert.equal(
          (await admin<{ status: string }>(f.issuer(), 'GET', `/tickets/${lovelace.tid}`)).status,
          'revoked',
        );

        const turing = tickets.find((t) => t.holder_name === 'Alan Turing')!;
        await search.fill(turing.tid.toLowerCase());
        await results.filter({ hasText: 'Alan Turing' }).waitFor();
        await page.waitForFunction(() => document.querySelectorAll('ul.tickets > li').length === 1);
      } finally {
        await context.close();
      }
    },
  );

  browserTest('search ignores case, accents and punctuation: jose finds José, obrien finds O’Brien', async () => {
    const { eid, context, page } = await eventPage('Accent Fest');
    try {
      await admin(f.issuer(), 'POST', `/events/${eid}/tickets`, {
        tickets: [
          { holder_name: 'José Núñez', ticket_type: 'GA' },
          { holder_name: "Siobhán O'Brien", ticket_type: 'GA' },
          { holder_name: 'Ada Lovelace', ticket_type: 'GA' },
        ],
      });
      const found = page.getByRole('list', { name: 'Tickets found' }).getByRole('listitem');
      for (const [typed, holder] of [
        ['jose', 'José Núñez'],
        ['obrien', "Siobhán O'Brien"],
        ['NUNEZ', 'José Núñez'],
      ] as const) {
        await page.getByLabel('Search tickets').fill(typed);
        await found.filter({ hasText: holder }).waitFor();
        assert.equal(await found.count(), 1, typed);
      }
    } finally {
      await context.close();
    }
  });

  browserTest('"Reissue" gives a ticket a new token after a confirmation', async () => {
    const { eid, context, page } = await eventPage('Reissue Fest');
    try {
      const ticket = await admin<{ tid: string; ticket_token: string }>(f.issuer(), 'POST', `/events/${eid}/tickets`, {
        holder_name: 'Grace Hopper',
        ticket_type: 'GA',
      });
      await page.getByLabel('Search tickets').fill('hopper');
      const row = page
        .getByRole('list', { name: 'Tickets found' })
        .getByRole('listitem')
        .filter({ hasText: 'Grace Hopper' });
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Reissue' }).click();
      await row.getByText('Reissued').waitFor();
      const after = await admin<{ ticket_token: string }>(f.issuer(), 'GET', `/tickets/${ticket.tid}`);
      assert.notEqual(after.ticket_token, ticket.ticket_token);
    } finally {
      await context.close();
    }
  });

  browserTest(
    '"Reissue" names the token the console shows: a ticket reissued meanwhile keeps its newer token',
    async () => {
      const { eid, context, page } = await eventPage('Stale Reissue Fest');
      try {
        const ticket = await admin<{ tid: string }>(f.issuer(), 'POST', `/events/${eid}/tickets`, {
          holder_name: 'Katherine Johnson',
          ticket_type: 'GA',
        });
        await page.getByLabel('Search tickets').fill('johnson');
        const row = page
          .getByRole('list', { name: 'Tickets found' })
          .getByRole('listitem')
          .filter({ hasText: 'Katherine Johnson' });
        await row.getByRole('button', { name: 'Reissue' }).waitFor();
        // Another organizer reissues it while this page still shows the first token.
        const meanwhile = await admin<{ ticket_token: string }>(
          f.issuer(),
          'POST',
          `/tickets/${ticket.tid}/reissue`,
          {},
        );
        page.once('dialog', (dialog) => void dialog.accept());
        await row.getByRole('button', { name: 'Reissue' }).click();
        await row.getByText(/Not done: .*reissued meanwhile/).waitFor();
        const after = await admin<{ ticket_token: string }>(f.issuer(), 'GET', `/tickets/${ticket.tid}`);
        assert.equal(after.ticket_token, meanwhile.ticket_token);
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the printable page shows each ticket’s QR code, and its print stylesheet hides the chrome', async () => {
    const { eid, context, page } = await eventPage('Print Fest');
    try {
      await admin(f.issuer(), 'POST', `/events/${eid}/tickets`, {
        tickets: [
          { holder_name: 'Ada Lovelace', ticket_type: 'VIP' },
          { holder_name: 'Alan Turing', ticket_type: 'GA' },
          { holder_name: 'Refunded Guest', ticket_type: 'GA' },
        ],
      });
      const { tickets } = await admin<{ tickets: { tid: string; holder_name: string }[] }>(
        f.issuer(),
        'GET',
        `/events/${eid}/tickets`,
      );
      const refunded = tickets.find((ticket) => ticket.holder_name === 'Refunded Guest')!;
      await admin(f.issuer(), 'POST', `/tickets/${refunded.tid}/revoke`, { reason: 'refund' });
      await page.getByRole('link', { name: 'Printable ticket QR codes' }).click();
      await page.getByRole('heading', { level: 1, name: 'Tickets of Print Fest' }).waitFor();
      const qr = page.getByRole('img', { name: 'QR code of the ticket of Ada Lovelace' });
      await qr.waitFor();
      assert.equal(await page.getByRole('img', { name: 'QR code of the ticket of Refunded Guest' }).count(), 0);
      const cards = page.locator('.ticket-card');
      assert.equal(await cards.count(), 2, 'a revoked ticket gets no card');
      // Each card names the event and its date, as the console writes dates (the browser's locale and zone).
      const { event_date: date } = await admin<{ event_date: string }>(f.issuer(), 'GET', `/events/${eid}`);
      const shown = await page.evaluate(
        (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
        date,
      );
      for (const card of await cards.all()) {
        assert.ok(((await card.textContent()) ?? '').includes(`Print Fest · ${shown}`), 'the event and its date');
      }
      await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0));
      await page.emulateMedia({ media: 'print' });
      assert.equal(await page.getByRole('button', { name: 'Print' }).isVisible(), false);
      assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), false);
      assert.equal(await qr.isVisible(), true);
    } finally {
      await context.close();
    }
  });
});
