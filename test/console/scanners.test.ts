import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import {
  admin,
  browserSkipReason,
  browserTest,
  checkIn,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();

describe('console in Chromium: scanners', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest(
    'the enrolment QR and its setup_uri enrol a real scanner, which then shows in Scanners and the Scan log',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Gate Fest');
      const ticket = await admin<{ tid: string }>(issuer, 'POST', `/events/${eid}/tickets`, {
        holder_name: 'Ada Lovelace',
        ticket_type: 'GA',
      });
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'Gate Fest' }).click();
        await page.getByRole('heading', { name: 'Conflicts', level: 2 }).waitFor();
        await page.getByLabel('Gate (optional)').fill('north');
        await page.getByRole('button', { name: 'New enrolment token' }).click();

        const qr = page.getByRole('img', { name: 'Setup QR code' });
        await qr.waitFor();
        assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
        assert.ok((await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, 'the QR image decodes');
        const uri = (await page.locator('code.uri').textContent()) ?? '';
        const setup = new URL(uri);
        assert.equal(setup.protocol, 'ticket-issuer:');
        assert.equal(setup.searchParams.get('iss'), 'http://127.0.0.1');
        const token = setup.searchParams.get('token')!;
        assert.match(token, /^st_/);
        const webQr = page.getByRole('img', { name: 'Web scanner QR code' });
        assert.match((await webQr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
        assert.ok((await webQr.evaluate((img: HTMLImageElement) => img.naturalWidth)) > 0, 'the QR image decodes');

        const scanner = await enrollWith(issuer, token, 'north');
        const scanners = page.getByRole('region', { name: 'Scanners' });
        await scanners.getByText('Gate north phone').waitFor({ timeout: 10_000 });

        assert.equal((await checkIn(issuer, scanner, eid, ticket.tid, 'north')).body.status, 'valid');
        assert.equal((await checkIn(issuer, scanner, eid, ticket.tid, 'north')).body.status, 'already_used');
        const log = page.getByRole('region', { name: 'Scan log' });
        await log.getByText('already used', { exact: true }).waitFor({ timeout: 5000 });
        await log.getByText('valid', { exact: true }).waitFor();
        // Each line names the holder.
        assert.equal(await log.getByText('Ada Lovelace', { exact: true }).count(), 2);
        await admin(issuer, 'POST', `/tickets/${ticket.tid}/revoke`, { reason: 'refunded at the box office' });
        assert.equal((await checkIn(issuer, scanner, eid, ticket.tid, 'north')).body.status, 'revoked');
        await log.getByText('Reason: refunded at the box office').waitFor({ timeout: 5000 });

        page.once('dialog', (dialog) => void dialog.accept());
        await scanners.getByRole('button', { name: 'Revoke key' }).click();
        await scanners.getByText('key revoked').waitFor();
        assert.equal((await checkIn(issuer, scanner, eid, ticket.tid, 'north')).status, 401);
      } finally {
        await context.close();
      }
    },
  );

  browserTest('the Conflicts section lists offline double entries, and the counter counts them', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Offline Fest');
    const ticket = await admin<{ tid: string }>(issuer, 'POST', `/events/${eid}/tickets`, {
      holder_name: 'Grace Hopper',
      ticket_type: 'GA',
    });
    const tokens = await Promise.all(
      ['north', 'south'].map((gate) =>
        admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, { gate_id: gate }),
      ),
    );
    const north = await enrollWith(issuer, tokens[0]!.token, 'north');
    const south = await enrollWith(issuer, tokens[1]!.token, 'south');
    const scan = (scanner: typeof north, gate: string, offline: boolean) =>
      fetch(`${issuer.url}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
        body: JSON.stringify({
          tid: ticket.tid,
          eid,
          scanned_at: new Date(Date.now() - 60_000).toISOString(),
          scanner_id: scanner.scannerId,
          gate_id: gate,
          idempotency_key: crypto.randomUUID(),
          // An online scan says nothing of an offline verdict (false would mean "turned away offline").
          ...(offline ? { admitted_offline: true } : {}),
        }),
      });
    assert.equal((await scan(north, 'north', false)).status, 200);
    assert.equal((await scan(south, 'south', true)).status, 200);

    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Offline Fest' }).click();
      const conflicts = page.getByRole('region', { name: 'Conflicts' });
      await conflicts.getByText('Grace Hopper').waitFor();
      await conflicts.getByText(/admitted offline/).waitFor();
      assert.equal(await page.getByTestId('count-conflicts').textContent(), '1');
      // The scan log says which scan a scanner let in offline, and whose ticket it was.
      const log = page.getByRole('region', { name: 'Scan log' });
      await log.getByText('· admitted offline').waitFor({ timeout: 5000 });
      assert.equal(await log.getByText('· admitted offline').count(), 1, 'the online scan is not marked');
      assert.equal(await log.getByText('Grace Hopper', { exact: true }).count(), 2);
    } finally {
      await context.close();
    }
  });
});
