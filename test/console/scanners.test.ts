import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
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
  startIssuer,
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
  /** Signs in and opens an event's page. */
  async function openEvent(page: Page, name: string): Promise<void> {
    await signIn(page);
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  interface ListedToken {
    token_id: string;
    gate_id: string | null;
    status: string;
    scanner_name: string | null;
  }
  const tokensOf = async (eid: string) =>
    (await admin<{ enrollment_tokens: ListedToken[] }>(f.issuer(), 'GET', `/events/${eid}/enrollment-tokens`))
      .enrollment_tokens;

  browserTest(
    'the setup card labels its codes: Web scanner QR code with its /scan/#setup= link as text, the app’s ticket-issuer:// URI; a loopback BASE_URL is warned about',
    async () => {
      const issuer = f.issuer();
      await createEvent(issuer, 'Labelled Fest');
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await openEvent(page, 'Labelled Fest');
        await page.getByRole('button', { name: 'New enrolment token' }).click();
        const web = page.getByRole('figure', { name: /^Web scanner QR code for a phone’s camera/ });
        const app = page.getByRole('figure', { name: /^Scanner app QR code for the scanner app/ });
        await web.getByRole('img', { name: 'Web scanner QR code' }).waitFor();
        await app.getByRole('img', { name: 'Setup QR code' }).waitFor();
        const setupUri = (await app.locator('code').textContent())!;
        assert.match(setupUri, /^ticket-issuer:\/\/enroll\?/);
        const link = web.getByRole('link');
        const linkText = (await link.textContent())!;
        assert.equal(linkText, `http://127.0.0.1/scan/#setup=${encodeURIComponent(setupUri)}`);
        assert.equal(await link.getAttribute('href'), linkText);
        // The web scanner's code comes first: it is the one a phone's own camera can open.
        const [webBox, appBox] = [await web.boundingBox(), await app.boundingBox()];
        assert.ok(webBox!.y < appBox!.y || webBox!.x < appBox!.x);
        const warning = page.getByRole('status').filter({ hasText: 'phones cannot reach it' });
        assert.match((await warning.textContent())!, /BASE_URL\) is http:\/\/127\.0\.0\.1: .*only over HTTPS/);
      } finally {
        await context.close();
      }

      // An issuer at an address phones reach, over HTTPS: no warning.
      const reachable = await startIssuer({ env: { BASE_URL: 'https://gates.example.org' } });
      const other = await openConsole(f.browser(), reachable);
      try {
        await createEvent(reachable, 'Reachable Fest');
        await openEvent(other.page, 'Reachable Fest');
        await other.page.getByRole('button', { name: 'New enrolment token' }).click();
        await other.page.getByRole('img', { name: 'Web scanner QR code' }).waitFor();
        assert.match(
          (await other.page.getByRole('link', { name: /\/scan\/#setup=/ }).textContent())!,
          /^https:\/\/gates\.example\.org\/scan\/#setup=/,
        );
        assert.equal(await other.page.getByText('BASE_URL').count(), 0, 'no warning');
      } finally {
        await other.context.close();
        await reachable.close();
      }
    },
  );

  browserTest(
    'Scanners names each scanner, its declared gate and its last contact in words; Revoke asks first',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Named Fest');
      await admin(issuer, 'PUT', `/events/${eid}/gates/north`, { name: 'North gate', admits: null });
      const made = async (gate?: string) =>
        (
          await admin<{ token: string }>(
            issuer,
            'POST',
            `/events/${eid}/enrollment-tokens`,
            gate ? { gate_id: gate } : {},
          )
        ).token;
      const north = await enrollWith(issuer, await made('north'), 'north');
      await enrollWith(issuer, await made());
      await enrollWith(issuer, await made('west'), 'west');
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await openEvent(page, 'Named Fest');
        const list = page.getByRole('list', { name: 'Enrolled scanners' });
        const item = (name: string) => list.getByRole('listitem').filter({ hasText: name });
        await item('Gate north phone').getByText('North gate (north)').waitFor();
        await item('Gate any phone').getByText('Any gate', { exact: true }).waitFor();
        await item('Gate west phone').getByText('Gate west (not declared)').waitFor();
        await item('Gate north phone').getByText('Last contact just now').waitFor();

        let asked = '';
        page.once('dialog', (dialog) => {
          asked = dialog.message();
          void dialog.dismiss();
        });
        await item('Gate north phone').getByRole('button', { name: 'Revoke' }).click();
        assert.match(asked, /Revoke the key of Gate north phone\?/);
        assert.equal((await checkIn(issuer, north, eid, 'tkt_unknown', 'north')).status, 404, 'still a key');

        page.once('dialog', (dialog) => void dialog.accept());
        await item('Gate north phone').getByRole('button', { name: 'Revoke' }).click();
        await item('Gate north phone').getByText('key revoked').waitFor();
        assert.equal((await checkIn(issuer, north, eid, 'tkt_unknown', 'north')).status, 401);
        // The revoked one goes to the end of the list.
        await page.waitForFunction(() =>
          document.querySelector('ul.scanners > li:last-child')?.textContent?.includes('Gate north phone'),
        );
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'open enrolment tokens are listed with Revoke; a used setup code is replaced by a new one for the same gate, saying who used it; Done revokes the code shown',
    async () => {
      const issuer = f.issuer();
      const eid = await createEvent(issuer, 'Relay Fest');
      await admin(issuer, 'PUT', `/events/${eid}/gates/north`, { name: 'North gate', admits: null });
      await admin(issuer, 'POST', `/events/${eid}/enrollment-tokens`, { gate_id: 'south' });
      const { context, page } = await openConsole(f.browser(), issuer);
      try {
        await openEvent(page, 'Relay Fest');
        const open = page.getByRole('list', { name: 'Open enrolment tokens' });
        const southToken = open.getByRole('listitem').filter({ hasText: 'Gate south (not declared)' });
        await southToken.getByText(/valid until .* \(in 6 days\)/).waitFor();

        await page.getByLabel('Gate (optional)').fill('north');
        await page.getByRole('button', { name: 'New enrolment token' }).click();
        const card = page.getByRole('region', { name: 'Set up a scanner' });
        await card.getByRole('heading', { name: 'Setup codes for North gate (north)' }).waitFor();
        const first = (await card.locator('code.uri').textContent())!;
        await open.getByRole('listitem').filter({ hasText: 'North gate (north)' }).waitFor({ timeout: 10_000 });

        await enrollWith(issuer, new URL(first).searchParams.get('token')!, 'north');
        await card
          .getByText('Used by Gate north phone. Here is a new code for the same gate.')
          .waitFor({ timeout: 5000 });
        const second = (await card.locator('code.uri').textContent())!;
        assert.notEqual(second, first, 'a fresh code');
        await card.getByRole('heading', { name: 'Setup codes for North gate (north)' }).waitFor();
        const northOpen = (await tokensOf(eid)).filter((t) => t.gate_id === 'north' && t.status === 'open');
        assert.equal(northOpen.length, 1, 'one open code for the gate: the one shown');
        assert.equal((await tokensOf(eid)).find((t) => t.status === 'used')?.scanner_name, 'Gate north phone');

        await southToken.getByRole('button', { name: /^Revoke enrolment token for Gate south/ }).click();
        await southToken.waitFor({ state: 'detached' });
        assert.equal((await tokensOf(eid)).find((t) => t.gate_id === 'south')?.status, 'revoked');

        await card.getByRole('button', { name: 'Done' }).click();
        await card.locator('code.uri').waitFor({ state: 'detached' });
        const shown = (await tokensOf(eid)).find((t) => t.gate_id === 'north' && t.status !== 'used');
        assert.equal(shown?.status, 'revoked', 'Done revokes the code no phone used');
        await open.getByText('No open enrolment token.').waitFor({ timeout: 10_000 });
        // The code that was shown no longer enrols anyone.
        await assert.rejects(enrollWith(issuer, new URL(second).searchParams.get('token')!), /enroll: 4\d\d/);
      } finally {
        await context.close();
      }
    },
  );
});
