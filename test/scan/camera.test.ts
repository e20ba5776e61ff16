import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fakeCameraArgs, writeVideo } from '../helpers/fake-camera.ts';
import {
  browserSkipReason,
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

describe('the web scanner’s camera (Chromium with a video file as its camera)', { skip }, () => {
  let issuer: RunningIssuer;
  let eid: string;
  const dir = mkdtempSync(join(tmpdir(), 'fake-camera-'));

  before(async () => {
    issuer = await startScanIssuer();
    eid = await createEvent(issuer, 'Camera Night');
  });
  after(async () => {
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('admits a ticket held up to the camera with the holder’s name, and rejects it held up again', async () => {
    const [ticket] = await issueTickets(issuer, eid, ['Ada Lovelace']);
    const video = join(dir, 'ticket.y4m');
    // The ticket, then a wall for longer than 3 s (so that the next sighting is a new scan), looping.
    writeVideo(video, [
      { text: ticket!.ticket_token, seconds: 1.5 },
      { text: null, seconds: 4 },
    ]);
    const browser = await launchBrowser(fakeCameraArgs(video));
    try {
      const { page, foreign } = await openPhone(browser, await webScannerLink(issuer, eid));
      await enrolled(page);
      await page.getByRole('button', { name: 'Start camera' }).click();
      const admit = await verdictOf(page, 'Admit', 20_000);
      assert.match(admit, /Ada Lovelace/);
      assert.match(await verdictOf(page, 'Reject', 20_000), /^Reject\s+already used at \d/);
      await page.getByRole('button', { name: 'Stop camera' }).click();
      assert.deepEqual(foreign, [], 'the decoder and everything else came from the issuer');

      const { scans } = (await (
        await fetch(`${issuer.url}/admin/v1/events/${eid}/scans`, {
          headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
        })
      ).json()) as { scans: { tid: string; outcome: string; replay: boolean }[] };
      const outcomes = scans.filter((scan) => scan.tid === ticket!.tid && !scan.replay).map((scan) => scan.outcome);
      assert.equal(outcomes[0], 'valid');
      assert.ok(
        outcomes.slice(1).every((outcome) => outcome === 'already_used'),
        outcomes.join(),
      );
    } finally {
      await browser.close();
    }
  });

  it('enrols from the setup code shown to the camera', async () => {
    const video = join(dir, 'setup.y4m');
    writeVideo(video, [{ text: await webScannerLink(issuer, eid), seconds: 2 }]);
    const browser = await launchBrowser(fakeCameraArgs(video));
    try {
      const { page } = await openPhone(browser, `${issuer.url}/scan/`);
      await page.getByRole('button', { name: 'Scan setup code' }).click();
      await enrolled(page);
      await page.getByText('Camera Night').first().waitFor();
    } finally {
      await browser.close();
    }
  });
});
