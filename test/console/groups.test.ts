import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();

describe('console in Chromium: orders, short codes and scanner clocks', () => {
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
    'a CSV with order_ref shows the order in its preview, and each ticket row its order and short code',
    async () => {
      const { eid, context, page } = await eventPage('Order Fest');
      try {
        const csv = [
          'holder_name,ticket_type,order_ref',
          'Ada Lovelace,GA,B-1042',
          'Byron Lovelace,GA,B-1042',
          'Alan Turing,GA,',
        ];
        await page.getByLabel('Import tickets (CSV)').setInputFiles({
          name: 'tickets.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(csv.join('\n'), 'utf8'),
        });
        const preview = page.getByRole('table', { name: 'First 3 rows of tickets.csv' });
        await preview.getByRole('columnheader', { name: 'Order' }).waitFor();
        assert.deepEqual(await preview.getByRole('row').allTextContents(), [
          'LineHolderTypeExpiresOrder',
          '2Ada LovelaceGAneverB-1042',
          '3Byron LovelaceGAneverB-1042',
          '4Alan TuringGAnever—',
        ]);
        await page.getByRole('button', { name: 'Import 3 tickets' }).click();
        await page.getByRole('status').filter({ hasText: 'Imported 3 tickets' }).waitFor();
        const { tickets } = await admin<{
          tickets: { holder_name: string; order_ref: string | null; short_code: string }[];
        }>(f.issuer(), 'GET', `/events/${eid}/tickets`);
        const ada = tickets.find((t) => t.holder_name === 'Ada Lovelace')!;
        assert.equal(ada.order_ref, 'B-1042');
        assert.equal(tickets.find((t) => t.holder_name === 'Alan Turing')!.order_ref, null);

        await page.getByLabel('Search tickets').fill('ada');
        const row = page
          .getByRole('list', { name: 'Tickets found' })
          .getByRole('listitem')
          .filter({ hasText: 'Ada Lovelace' });
        await row.getByText('Order B-1042').waitFor();
        await row.getByText(`Code ${ada.short_code}`).waitFor();
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the scanner list says how far off each scanner’s clock was at its last upload', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Clock Fest');
    const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
    const scanner = await enrollWith(issuer, token, 'north');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Ada', ticket_type: 'GA' }],
    });
    const res = await fetch(`${issuer.url}/api/v1/tickets/scans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
      body: JSON.stringify({
        sent_at: new Date(Date.now() + 10 * 60_000).toISOString(),
        scans: [
          {
            action: 'check_in',
            tid: tickets[0]!.tid,
            eid,
            scanned_at: new Date().toISOString(),
            scanner_id: scanner.scannerId,
            idempotency_key: randomUUID(),
          },
        ],
      }),
    });
    assert.equal(res.status, 200);
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Clock Fest' }).click();
      const list = page.getByRole('list', { name: 'Enrolled scanners' });
      await list
        .getByRole('listitem')
        .filter({ hasText: 'Gate north phone' })
        .getByText('Clock +10 min fast')
        .waitFor();
    } finally {
      await context.close();
    }
  });
});
