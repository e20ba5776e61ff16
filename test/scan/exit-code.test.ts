import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  checkCode,
  createEvent,
  enrolled,
  issueTickets,
  launchBrowser,
  openPhone,
  queueSynced,
  startScanIssuer,
  verdictOf,
  type RunningIssuer,
} from './harness.ts';
import { searchingLink } from './finder.ts';

const skip = browserSkipReason() ?? false;

describe(
  'the web scanner’s Exit takes a short code; offline verdicts name the holder from the roster',
  { skip },
  () => {
    let issuer: RunningIssuer;
    let browser: Browser;
    before(async () => {
      issuer = await startScanIssuer();
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await issuer?.close();
    });

    it('a typed code lets the holder out online and offline; an offline admit by token shows the name', async () => {
      const eid = await createEvent(issuer, 'Cloakroom Night');
      const [ada, grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Grace Hopper']);
      const { context, page } = await openPhone(browser, await searchingLink(issuer, eid), { height: 667 });
      try {
        await enrolled(page);
        const entry = page.getByRole('button', { name: 'Entry' });
        const exit = page.getByRole('button', { name: 'Exit' });
        await checkCode(page, ada!.ticket_token);
        await verdictOf(page, 'Admit');
        await exit.click();
        await checkCode(page, ada!.short_code.toLowerCase());
        const out = await verdictOf(page, 'Exit');
        assert.match(out, /Ada Lovelace/);
        assert.match(out, /Checked by the issuer/);
        assert.deepEqual(await seriousViolations(page), []);

        await entry.click();
        await context.setOffline(true);
        await page.getByText('Offline', { exact: true }).waitFor();
        await checkCode(page, grace!.ticket_token);
        const admitted = await verdictOf(page, 'Admit');
        assert.match(admitted, /Grace Hopper/, 'the name from the list kept on this phone');
        assert.match(admitted, /Decided on this device/);
        await exit.click();
        await checkCode(page, grace!.short_code.replace('-', ' '));
        const left = await verdictOf(page, 'Exit');
        assert.match(left, /Grace Hopper/);
        assert.match(left, /Decided on this device/);
        await checkCode(page, '00000-00000');
        assert.match(await verdictOf(page, 'Reject'), /^Reject\s*not valid/);
        assert.equal(await page.getByTestId('queued').textContent(), '2');

        await context.setOffline(false);
        await queueSynced(page);
        const reading = await admin<{ inside: number; entries: number; exits: number }>(
          issuer,
          'GET',
          `/events/${eid}/occupancy`,
        );
        assert.deepEqual([reading.inside, reading.entries, reading.exits], [0, 2, 2]);
      } finally {
        await context.close();
      }
    });
  },
);
