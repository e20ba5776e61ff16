import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { readBarcodes } from 'zxing-wasm/reader';
// Loads ZXing's WASM from node_modules (the package would fetch it from a CDN).
import '../helpers/qr-decode.ts';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { admin, browserTest, consoleFixture, createEvent } from './harness.ts';

/**
 * CONTRACT.md, "Tickets reach their holders": the holder page in a real browser on a phone-sized
 * screen (375 px): readable without sideways scrolling, no serious accessibility problem, the QR code
 * found by its name ("Ticket QR code") and scannable, and nothing loaded from anywhere but the issuer.
 */

interface Ticket {
  tid: string;
  ticket_token: string;
  holder_url: string;
}

describe('the holder page on a phone', () => {
  const fixture = consoleFixture();
  before(fixture.open);
  after(fixture.close);

  browserTest(
    'fits 375 px, passes axe, shows a scannable QR code named Ticket QR code, asks only the issuer',
    async () => {
      const issuer = fixture.issuer();
      const eid = await createEvent(issuer, 'Festival of Very Long Names and Even Longer Ticket Types 2026');
      const ticket = await admin<Ticket>(issuer, 'POST', `/events/${eid}/tickets`, {
        holder_name: 'Łukasz Żółć-Wolfeschlegelsteinhausenbergerdorff',
        ticket_type: 'Weekend pass with camping and parking',
      });
      const context = await fixture
        .browser()
        .newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2 });
      const page = await context.newPage();
      const origins = new Set<string>();
      page.on('request', (request) => origins.add(new URL(request.url()).origin));
      const path = new URL(ticket.holder_url).pathname;
      const response = await page.goto(`${issuer.url}${path}`);
      assert.equal(response?.status(), 200);

      const qr = page.getByRole('img', { name: 'Ticket QR code' });
      assert.equal(await qr.count(), 1);
      assert.ok(await qr.isVisible());
      const picture = await qr.screenshot();
      const read = await readBarcodes(new Uint8Array(picture), { formats: ['QRCode'], tryHarder: true });
      assert.deepEqual(
        read.filter((r) => r.isValid).map((r) => r.text),
        [ticket.ticket_token],
      );
      assert.ok(await page.getByText('Valid', { exact: true }).isVisible());
      assert.ok(await page.getByRole('link', { name: 'Download PDF' }).isVisible());
      assert.ok(await page.getByText(ticket.ticket_token).isVisible(), 'the token as text');
      assert.equal(await fitsWidth(page, 375), true, 'no sideways scrolling at 375 px');
      assert.deepEqual(await seriousViolations(page), []);
      assert.deepEqual([...origins], [issuer.url], 'nothing from another origin');
      await context.close();
    },
  );

  browserTest('the 404 page fits 375 px and passes axe too', async () => {
    const context = await fixture.browser().newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const response = await page.goto(`${fixture.issuer().url}/t/AAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(response?.status(), 404);
    assert.ok(await page.getByRole('heading', { name: 'Ticket not found' }).isVisible());
    assert.equal(await fitsWidth(page, 375), true);
    assert.deepEqual(await seriousViolations(page), []);
    await context.close();
  });
});
