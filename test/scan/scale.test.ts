import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, enrollWith } from '../console/harness.ts';
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

/** The changes feed's address: cut, a sync uploads its scans and then cannot pull. */
const FEED = '**/api/v1/events/*/changes**';

/** Five scan requests a minute per key: a queue of 30 sent one request each would wait for minutes. */
const CHECKIN_LIMIT = '5';

interface LoggedScan {
  tid: string;
  replay: boolean;
  outcome: string;
  admitted_offline: boolean | null;
}

/** How many requests the issuer answered on each route, by its own metrics. */
async function requestsByRoute(issuer: RunningIssuer): Promise<Map<string, number>> {
  const res = await fetch(`${issuer.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200);
  const counts = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('issuer_http_request_duration_seconds_count{')) continue;
    const route = /route="([^"]*)"/.exec(line)?.[1];
    if (route !== undefined) counts.set(route, (counts.get(route) ?? 0) + Number(line.split(' ').pop()));
  }
  return counts;
}

/** Waits until the page says this many scans wait for the issuer. */
async function queued(page: Page, count: number, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="queued"]')?.textContent === String(expected),
    count,
    { timeout },
  );
}

/** Takes the phone off the network and waits until the page says so. */
async function goOffline(page: Page): Promise<void> {
  await page.context().setOffline(true);
  await page.getByText('Offline', { exact: true }).waitFor();
}

/** The scan log of an event, replays (a request sent again as the network came back) left out. */
async function scanLog(issuer: RunningIssuer, eid: string): Promise<LoggedScan[]> {
  const { scans } = await admin<{ scans: LoggedScan[] }>(issuer, 'GET', `/events/${eid}/scans?limit=1000`);
  return scans.filter((scan) => !scan.replay);
}

describe('the web scanner at festival scale', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  before(async () => {
    issuer = await startScanIssuer({ RATE_LIMIT_CHECKIN_PER_KEY: CHECKIN_LIMIT });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('an offline entry synced after an online exit answered not_inside leaves the holder out', async () => {
    const eid = await createEvent(issuer, 'Late Entry Night');
    const [ada] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    // Another gate, online: a scanner key of its own.
    const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
    const south = await enrollWith(issuer, token, 'south');
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid, 'north'));
    try {
      await enrolled(page);
      await page.getByText('Online', { exact: true }).waitFor();
      await goOffline(page);
      await checkCode(page, ada!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Decided on this device/);
      await queued(page, 1);

      // Meanwhile the holder leaves through the online exit: the issuer knows of no entry yet.
      const exit = await fetch(`${issuer.url}/api/v1/tickets/check-out`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${south.apiKey}` },
        body: JSON.stringify({
          tid: ada!.tid,
          eid,
          scanned_at: new Date().toISOString(),
          scanner_id: south.scannerId,
          gate_id: 'south',
          idempotency_key: randomUUID(),
        }),
      });
      assert.equal(exit.status, 200);
      assert.equal(((await exit.json()) as { status: string }).status, 'not_inside');

      await context.setOffline(false);
      await queued(page, 0, 15_000);

      const res = await fetch(`${issuer.url}/api/v1/tickets/${ada!.tid}/status`, {
        headers: { authorization: `Bearer ${south.apiKey}` },
      });
      assert.equal(res.status, 200);
      const status = (await res.json()) as {
        inside: boolean;
        checked_in_at: string | null;
        checked_out_at: string | null;
      };
      assert.equal(status.inside, false, JSON.stringify(status));
      assert.ok(status.checked_in_at !== null && status.checked_out_at !== null, JSON.stringify(status));
      assert.ok(Date.parse(status.checked_in_at) <= Date.parse(status.checked_out_at), JSON.stringify(status));
      const occupancy = await admin<{ inside: number; entries: number }>(issuer, 'GET', `/events/${eid}/occupancy`);
      assert.equal(occupancy.inside, 0);
      const log = await scanLog(issuer, eid);
      assert.deepEqual(log.map((scan) => scan.outcome).sort(), ['not_inside', 'valid']);
    } finally {
      await context.close();
    }
  });

  it('keeps the exits it synced when the feed pull after them fails', async () => {
    const eid = await createEvent(issuer, 'Feed Down Night');
    const [grace] = await issueTickets(issuer, eid, ['Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      // In online, then a sync: the device knows the holder is inside from the feed too.
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Admit'), /Checked by the issuer/);
      const lastSync = page.getByTestId('last-sync');
      const before = await lastSync.getAttribute('datetime');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.waitForFunction(
        (was) => {
          const at = document.querySelector('[data-testid="last-sync"]')?.getAttribute('datetime');
          return at !== null && at !== undefined && at !== was;
        },
        before,
        { timeout: 10_000 },
      );
      const synced = await lastSync.getAttribute('datetime');

      // Out at the exit, decided here; then the upload gets through and the feed pull does not.
      await goOffline(page);
      await page.getByRole('button', { name: 'Exit' }).click();
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Exit'), /Decided on this device/);
      await queued(page, 1);
      let feedCut = 0;
      await context.route(FEED, (route) => {
        feedCut += 1;
        return route.abort();
      });
      await context.setOffline(false);
      // The queue reads empty once the sync ended, its feed pull included.
      await queued(page, 0, 15_000);
      assert.ok(feedCut > 0, 'the sync tried to pull the feed');
      assert.equal(await lastSync.getAttribute('datetime'), synced, 'the sync did not complete');
      const log = await scanLog(issuer, eid);
      assert.deepEqual(log.map((scan) => scan.outcome).sort(), ['checked_out', 'valid'], JSON.stringify(log));

      // Deciding alone again, the device knows the holder went out: not let out twice.
      await goOffline(page);
      await checkCode(page, grace!.ticket_token);
      assert.match(await verdictOf(page, 'Already out'), /Decided on this device/);
      await context.unroute(FEED);
    } finally {
      await context.close();
    }
  });

  it('syncs a queue of 30 offline scans in one upload, each logged with its outcome', async () => {
    const eid = await createEvent(issuer, 'Upload Night');
    const holders = Array.from({ length: 20 }, (_, i) => `Holder ${String(i + 1).padStart(2, '0')}`);
    const tickets = await issueTickets(issuer, eid, holders);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await page.getByText('Online', { exact: true }).waitFor();
      await goOffline(page);

      // 20 entries, 4 of them scanned again (already used), then 6 exits: 30 scans wait.
      let waiting = 0;
      const scan = async (code: string, word: 'Admit' | 'Reject' | 'Exit') => {
        await checkCode(page, code);
        waiting += 1;
        await queued(page, waiting);
        assert.match(await verdictOf(page, word), /Decided on this device/);
      };
      for (const ticket of tickets) await scan(ticket.ticket_token, 'Admit');
      for (const ticket of tickets.slice(0, 4)) await scan(ticket.ticket_token, 'Reject');
      await page.getByRole('button', { name: 'Exit' }).click();
      for (const ticket of tickets.slice(10, 16)) await scan(ticket.ticket_token, 'Exit');
      assert.equal(waiting, 30);

      const before = await requestsByRoute(issuer);
      await context.setOffline(false);
      await queued(page, 0, 15_000);
      const afterSync = await requestsByRoute(issuer);
      const sent = (route: string) => (afterSync.get(route) ?? 0) - (before.get(route) ?? 0);
      const uploads = sent('/api/v1/tickets/scans');
      // One upload; a second only if an answer was lost as the network came back.
      assert.ok(uploads >= 1 && uploads <= 2, `${uploads} uploads`);
      assert.equal(sent('/api/v1/tickets/check-in'), 0, 'no check-in sent alone');
      assert.equal(sent('/api/v1/tickets/check-out'), 0, 'no check-out sent alone');

      const log = await scanLog(issuer, eid);
      assert.equal(log.length, 30, JSON.stringify(log));
      const outcomes = (tid: string) => log.filter((scan) => scan.tid === tid).map((scan) => scan.outcome);
      tickets.forEach((ticket, i) => {
        const expected = ['valid'];
        if (i < 4) expected.push('already_used');
        if (i >= 10 && i < 16) expected.push('checked_out');
        assert.deepEqual(outcomes(ticket.tid), expected, ticket.holder_name);
      });
      const entries = log.filter((scan) => scan.outcome === 'valid');
      assert.ok(entries.every((scan) => scan.admitted_offline === true));
      const occupancy = await admin<{ inside: number; entries: number; exits: number }>(
        issuer,
        'GET',
        `/events/${eid}/occupancy`,
      );
      assert.deepEqual([occupancy.inside, occupancy.entries, occupancy.exits], [14, 20, 6]);
    } finally {
      await context.close();
    }
  });
});
