import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { fakeCameraArgs, writeVideo } from '../helpers/fake-camera.ts';
import {
  admin,
  browserSkipReason,
  checkCode,
  createEvent,
  enrolled,
  issueTickets,
  launchBrowser,
  openPhone,
  startScanIssuer,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

interface LoggedScan {
  tid: string;
  outcome: string;
  admitted_offline: boolean;
  scanned_at: string;
  received_at: string;
}

/** The verdict's text once it differs from `previous` (the next scan's verdict). */
async function nextVerdict(page: Page, previous: string): Promise<string> {
  await page.waitForFunction(
    (before) => {
      const text = document.querySelector('[data-testid="verdict"]')?.textContent?.trim() ?? '';
      return text !== '' && text !== before;
    },
    previous,
    { timeout: 10_000 },
  );
  return ((await page.getByTestId('verdict').textContent()) ?? '').trim();
}

/** The indicator: the element whose text is exactly Online or Offline. */
async function indicator(page: Page): Promise<string> {
  const online = await page.getByText('Online', { exact: true }).count();
  const offline = await page.getByText('Offline', { exact: true }).count();
  assert.equal(online + offline, 1, 'one indicator, reading Online or Offline');
  return online === 1 ? 'Online' : 'Offline';
}

describe('the web scanner decides alone only after a failed request to the issuer', { skip }, () => {
  let issuer: RunningIssuer;
  let eid: string;
  const dir = mkdtempSync(join(tmpdir(), 'reachability-'));

  before(async () => {
    issuer = await startScanIssuer();
    eid = await createEvent(issuer, 'Harbour Lights');
  });
  after(async () => {
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a QR code and typed text that are no ticket are `not valid` and leave it Online: a ticket revoked a moment earlier is the issuer’s `revoked`', async () => {
    const [first, second] = await issueTickets(issuer, eid, ['Grace Hopper', 'Edsger Dijkstra']);
    const video = join(dir, 'poster.y4m');
    // The bar's menu poster in front of the camera, then a wall.
    writeVideo(video, [
      { text: 'https://bar.example/menu?table=12', seconds: 1.5 },
      { text: null, seconds: 30 },
    ]);
    const browser = await launchBrowser(fakeCameraArgs(video));
    try {
      const { page } = await openPhone(browser, await webScannerLink(issuer, eid));
      await enrolled(page);
      await page.getByText('Online', { exact: true }).waitFor();

      await page.getByRole('button', { name: 'Start camera' }).click();
      const poster = await verdictOf(page, 'Reject', 20_000);
      assert.match(poster, /^Reject\s+not valid/);
      await page.getByRole('button', { name: 'Stop camera' }).click();
      assert.equal(await indicator(page), 'Online', 'a QR code that is no ticket says nothing of the issuer');

      await admin(issuer, 'POST', `/tickets/${first!.tid}/revoke`, { reason: 'refunded' });
      await checkCode(page, first!.ticket_token);
      const revoked = await nextVerdict(page, poster);
      assert.match(revoked, /^Reject\s+revoked/);
      assert.match(revoked, /Grace Hopper/, 'the issuer answered: it names the holder');
      assert.equal(await indicator(page), 'Online');

      await checkCode(page, 'table 12, two beers');
      const typed = await nextVerdict(page, revoked);
      assert.match(typed, /^Reject\s+not valid/);
      assert.equal(await indicator(page), 'Online', 'typed text that is no ticket says nothing of the issuer');

      await admin(issuer, 'POST', `/tickets/${second!.tid}/revoke`, { reason: 'refunded' });
      await checkCode(page, second!.ticket_token);
      const again = await nextVerdict(page, typed);
      assert.match(again, /^Reject\s+revoked/);
      assert.match(again, /Edsger Dijkstra/);
      assert.equal(await indicator(page), 'Online');
      assert.equal(await page.getByTestId('queued').textContent(), '0', 'nothing waits: the issuer decided');

      // In the scan log at once, each an online check: received as it was scanned, not admitted
      // offline (an offline verdict would reach the issuer with a later sync, `admitted_offline` set).
      const { scans } = await admin<{ scans: LoggedScan[] }>(issuer, 'GET', `/events/${eid}/scans`);
      for (const ticket of [first!, second!]) {
        const logged = scans.filter((scan) => scan.tid === ticket.tid);
        assert.deepEqual(
          logged.map((scan) => [scan.outcome, scan.admitted_offline]),
          [['revoked', false]],
        );
        const delay = Date.parse(logged[0]!.received_at) - Date.parse(logged[0]!.scanned_at);
        assert.ok(delay < 2500, `received ${delay} ms after the scan`);
      }
    } finally {
      await browser.close();
    }
  });

  it('a key revoked while the page was closed shows at once when it opens, before any scan', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = await openPhone(browser, await webScannerLink(issuer, eid));
      await enrolled(page);
      const { scanners } = await admin<{ scanners: { api_key_id: string; enrolled_at: string }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scanners`,
      );
      const latest = scanners.sort((a, b) => a.enrolled_at.localeCompare(b.enrolled_at)).at(-1)!;
      await admin(issuer, 'POST', `/api-keys/${latest.api_key_id}/revoke`);
      await page.reload();
      await page
        .getByText(/revoked or expired/)
        .first()
        .waitFor({ timeout: 10_000 });
    } finally {
      await browser.close();
    }
  });
});
