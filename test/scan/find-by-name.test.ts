import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  createEvent,
  enrolled,
  issueTickets,
  launchBrowser,
  network,
  openPhone,
  queueSynced,
  startScanIssuer,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';
import { answer, finder, holderButton, searchingLink, typeName } from './finder.ts';

const skip = browserSkipReason() ?? false;

describe('the web scanner’s Find by name', { skip }, () => {
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

  it('appears only with the permission; typing a name lists the holder, and choosing admits (manual)', async () => {
    const eid = await createEvent(issuer, 'Dead Phones Night');
    const [ada, , grace] = await issueTickets(issuer, eid, ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    await admin(issuer, 'PATCH', `/tickets/${grace!.tid}`, { attention: true, checkin_text: 'Ramp at the north door' });

    const plain = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(plain.page);
      assert.equal(await finder(plain.page).count(), 1, 'built, and hidden');
      assert.equal(await finder(plain.page).isVisible(), false, 'no Find by name without the permission');
    } finally {
      await plain.context.close();
    }

    const { context, page } = await openPhone(browser, await searchingLink(issuer, eid));
    try {
      await enrolled(page);
      await finder(page).waitFor({ state: 'visible', timeout: 10_000 });
      await typeName(page, 'lo');
      await page.waitForTimeout(600);
      assert.equal(await holderButton(page, 'Ada Lovelace').count(), 0, 'two letters ask nothing');

      await typeName(page, 'LOVEL');
      await holderButton(page, 'Ada Lovelace').waitFor({ timeout: 10_000 });
      assert.match((await holderButton(page, 'Ada Lovelace').textContent()) ?? '', /General admission · not in yet/);
      assert.equal(await holderButton(page, 'Alan Turing').count(), 0);

      await typeName(page, 'hopper');
      const graceButton = holderButton(page, 'Grace Hopper');
      await graceButton.waitFor({ timeout: 10_000 });
      assert.match((await graceButton.textContent()) ?? '', /Attention: Ramp at the north door/);
      assert.deepEqual(await seriousViolations(page), [], 'axe-core with the list shown');
      assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');

      // Asked first: Grace's name, type and attention text; Cancel lets nobody in.
      await graceButton.click();
      const asked = await answer(page, 'Cancel');
      assert.match(asked, /Grace Hopper · General admission/);
      assert.match(asked, /Attention: Ramp at the north door/);
      assert.equal((await admin<{ status: string }>(issuer, 'GET', `/tickets/${grace!.tid}`)).status, 'valid');

      await typeName(page, 'ada lov');
      await holderButton(page, 'Ada Lovelace').click();
      await answer(page, 'Admit');
      assert.match(await verdictOf(page, 'Admit'), /Ada Lovelace/);
      assert.equal(await finder(page).inputValue(), '', 'the field is emptied for the next holder');
      const log = await admin<{ scans: { tid: string; outcome: string; manual: boolean }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scans`,
      );
      assert.deepEqual(
        log.scans.filter((s) => s.tid === ada!.tid).map((s) => [s.outcome, s.manual]),
        [['valid', true]],
      );

      // Chosen again, the holder is inside: the search says so, and a second check-in is rejected.
      await typeName(page, 'lovelace');
      const again = holderButton(page, 'Ada Lovelace');
      await again.waitFor({ timeout: 10_000 });
      assert.match((await again.textContent()) ?? '', /inside now.*Would be refused: already used\./);
      await again.click();
      assert.match(await answer(page, 'Admit'), /Would be refused: already used\./);
      assert.match(await verdictOf(page, 'Reject'), /already used/);

      // Exit mode lets nobody in by name.
      await page.getByRole('button', { name: 'Exit' }).click();
      assert.equal(await finder(page).isVisible(), false);
      await page.getByRole('button', { name: 'Entry' }).click();
      assert.equal(await finder(page).isVisible(), true);
      assert.deepEqual(await seriousViolations(page), []);
    } finally {
      await context.close();
    }
  });

  it('a holder listed online and chosen once offline is judged on the phone, and the upload checks them in', async () => {
    const eid = await createEvent(issuer, 'Cut Cable Night');
    const [alan] = await issueTickets(issuer, eid, ['Alan Turing']);
    const { context, page } = await openPhone(browser, await searchingLink(issuer, eid));
    try {
      await enrolled(page);
      await finder(page).waitFor({ state: 'visible', timeout: 10_000 });
      await typeName(page, 'turing');
      await holderButton(page, 'Alan Turing').waitFor({ timeout: 10_000 });
      await context.setOffline(true);
      await network(page, 'Offline');
      await holderButton(page, 'Alan Turing').click();
      await answer(page, 'Admit');
      const admitted = await verdictOf(page, 'Admit');
      assert.match(admitted, /Alan Turing/);
      assert.match(admitted, /Decided on this device/);
      assert.equal(await page.getByTestId('queued').textContent(), '1');
      await context.setOffline(false);
      await queueSynced(page);
      const ticket = await admin<{ status: string }>(issuer, 'GET', `/tickets/${alan!.tid}`);
      assert.equal(ticket.status, 'checked_in', 'the upload agreed with the phone');
    } finally {
      await context.close();
    }
  });
});
