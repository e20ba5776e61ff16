import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
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

interface TokenListing {
  token_id: string;
  status: string;
}

/**
 * A device whose scans wait for the issuer is held to their event: a setup code of another event is
 * refused. The issuer is asked to refuse it before using it, so the code stays good and no scanner is
 * enrolled that no device holds.
 */
describe('re-enrolling the web scanner for another event while scans wait', { skip }, () => {
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

  it('refuses the setup code without using it: no scanner enrolled in the other event, the queue kept', async () => {
    const eid = await createEvent(issuer, 'Harbour Nights');
    const [ticket] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      // A scan admitted offline, then the key revoked: the scan stays queued (a 401 keeps every scan).
      await context.setOffline(true);
      await page.getByText('Offline', { exact: true }).waitFor();
      await checkCode(page, ticket!.ticket_token);
      await verdictOf(page, 'Admit');
      const { scanners } = await admin<{ scanners: { api_key_id: string }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scanners`,
      );
      await admin(issuer, 'POST', `/api-keys/${scanners[0]!.api_key_id}/revoke`, {});
      await context.setOffline(false);
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page
        .getByText(/key is revoked or expired/)
        .first()
        .waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId('queued').textContent(), '1');

      const other = await createEvent(issuer, 'Second Stage');
      await page.goto(await webScannerLink(issuer, other));
      const dialog = page.getByRole('dialog', { name: 'Replace this device’s enrolment?' });
      if (await dialog.isVisible().catch(() => false))
        await dialog.getByRole('button', { name: 'Replace enrolment' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'Enrolment failed.' });
      await refusal.waitFor({ timeout: 15_000 });
      assert.match((await refusal.textContent())!, /another event\. The setup code was not used: it still works\./);

      const { enrollment_tokens } = await admin<{ enrollment_tokens: TokenListing[] }>(
        issuer,
        'GET',
        `/events/${other}/enrollment-tokens`,
      );
      assert.deepEqual(
        enrollment_tokens.map((t) => t.status),
        ['open'],
        'the setup code of the other event is still unused',
      );
      const enrolledThere = await admin<{ scanners: unknown[] }>(issuer, 'GET', `/events/${other}/scanners`);
      assert.deepEqual(enrolledThere.scanners, [], 'no scanner enrolled that no device holds');
      assert.equal(await page.getByTestId('queued').textContent(), '1', 'the queued scan is kept');
    } finally {
      await context.close();
    }
  });
});
