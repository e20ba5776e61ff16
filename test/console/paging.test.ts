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
  type RunningIssuer,
  signIn,
} from './harness.ts';

browserSkipReason();

/** Uploads scans of one scanner in one request (the scan upload route); every answer is 200. */
async function upload(
  issuer: RunningIssuer,
  scanner: { apiKey: string; scannerId: string },
  eid: string,
  tids: string[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const res = await fetch(`${issuer.url}/api/v1/tickets/scans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify({
      scans: tids.map((tid) => ({
        action: 'check_in',
        tid,
        eid,
        scanned_at: new Date(Date.now() - 60_000).toISOString(),
        scanner_id: scanner.scannerId,
        idempotency_key: randomUUID(),
        ...extra,
      })),
    }),
  });
  assert.equal(res.status, 200, await res.text());
}

describe('console in Chromium: the scan log and the conflicts are paged', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest(
    'the scan log shows the latest 50 scans and the conflicts the first 20, each with Load more; nothing reads the whole log',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Paged Fest');
      const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
        tickets: Array.from({ length: 95 }, (_, i) => ({
          holder_name: `Guest ${String(i).padStart(2, '0')}`,
          ticket_type: 'GA',
        })),
      });
      const tids = tickets.map((t) => t.tid);
      const tokens = await Promise.all(
        ['north', 'south'].map((gate) =>
          admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, { gate_id: gate }),
        ),
      );
      const north = await enrollWith(issuer, tokens[0]!.token, 'north');
      const south = await enrollWith(issuer, tokens[1]!.token, 'south');
      // 95 entries, then 25 of the tickets let in again offline at the other gate: 120 scans, 25 conflicts.
      await upload(issuer, north, eid, tids);
      await upload(issuer, south, eid, tids.slice(0, 25), { admitted_offline: true });

      const { context, page } = await openConsole(f.browser(), issuer, { width: 1280 });
      const asked: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (/\/events\/[^/]+\/(scans|conflicts)/.test(url.pathname)) asked.push(`${url.pathname}${url.search}`);
      });
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Paged Fest' }).click();
        await page.getByRole('heading', { level: 1, name: 'Paged Fest' }).waitFor();

        const log = page.getByRole('region', { name: 'Scan log' });
        const scans = log.locator('ul.scan-log > li');
        await log.getByRole('button', { name: 'Load more' }).waitFor();
        assert.equal(await scans.count(), 50, 'the latest page');
        // Newest first: the page starts with the offline scans, the last ones made.
        assert.match((await scans.first().textContent())!, /admitted offline/);
        await log.getByRole('button', { name: 'Load more' }).click();
        await page.waitForFunction(() => document.querySelectorAll('ul.scan-log > li').length === 100);
        await log.getByRole('button', { name: 'Load more' }).click();
        await page.waitForFunction(() => document.querySelectorAll('ul.scan-log > li').length === 120);
        await log.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
        assert.equal(await log.getByText('Guest 94', { exact: true }).count(), 1);
        assert.equal(
          await log.getByText('Guest 00', { exact: true }).count(),
          2,
          'the entry and the offline double scan',
        );

        const conflicts = page.getByRole('region', { name: 'Conflicts' });
        const cards = conflicts.locator('ul.conflicts > li');
        await conflicts.getByRole('button', { name: 'Load more' }).waitFor();
        assert.equal(await cards.count(), 20);
        assert.equal(await page.getByTestId('count-conflicts').textContent(), '25');
        await conflicts.getByRole('button', { name: 'Load more' }).click();
        await page.waitForFunction(() => document.querySelectorAll('ul.conflicts > li').length === 25);
        await conflicts.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });

        // A poll later, the pages shown stay shown, and a new scan joins the top.
        await upload(issuer, north, eid, [tids[94]!]);
        await page.waitForFunction(
          () => document.querySelector('ul.scan-log > li .holder')?.textContent === 'Guest 94',
          null,
          { timeout: 5000 },
        );
        assert.equal(await scans.count(), 121);
        assert.equal(await cards.count(), 25);

        // Every read was a page: the latest scans or an older page, 50 at most; conflicts 20 or 40 cards.
        assert.ok(asked.length > 0);
        for (const url of asked) {
          const limit = Number(new URLSearchParams(url.split('?')[1]).get('limit'));
          assert.ok(
            (url.includes('/scans/recent?') && limit === 50) || (url.includes('/conflicts?') && limit <= 40),
            `a page, not the whole: ${url}`,
          );
        }
      } finally {
        await context.close();
      }
    },
  );
});
