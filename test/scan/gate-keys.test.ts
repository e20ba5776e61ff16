import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import {
  admin,
  browserSkipReason,
  createEvent,
  enrolled,
  launchBrowser,
  openPhone,
  startScanIssuer,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

/** Every oscillator the page starts, with its pitch and wave: what the speaker plays. */
async function recordTones(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const played: { hz: number; wave: string }[] = [];
    (window as unknown as { played: typeof played }).played = played;
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (this: OscillatorNode, ...args: Parameters<typeof start>) {
      played.push({ hz: this.frequency.value, wave: this.type });
      return start.apply(this, args);
    };
  });
}

/** The notes played since the last call (waiting a moment for a tone's audio to start). */
async function tonesSince(page: Page): Promise<string> {
  await page.waitForTimeout(400);
  return page.evaluate(() => {
    const played = (window as unknown as { played: { hz: number; wave: string }[] }).played;
    return played
      .splice(0)
      .map((note) => `${note.wave} ${note.hz}`)
      .join(', ');
  });
}

/** Types a code into the focused field key by key and presses Enter, as a barcode gun does. */
async function gunScan(page: Page, code: string): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

/** Pastes a code into **Ticket code** and presses Enter there. */
async function enterCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Ticket code').fill(code);
  await page.getByLabel('Ticket code').press('Enter');
}

async function verdictMatching(page: Page, pattern: RegExp): Promise<string> {
  await page.getByTestId('verdict').filter({ hasText: pattern }).waitFor({ timeout: 10_000 });
  return ((await page.getByTestId('verdict').textContent()) ?? '').trim();
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);

describe('the web scanner with a barcode gun, its tones and its Sound switch', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  before(async () => {
    issuer = await startScanIssuer();
    browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('checks each code on Enter and keeps the focus, with a distinct tone per kind of verdict', async () => {
    const eid = await createEvent(issuer, 'Gun Night');
    await admin(issuer, 'PUT', `/events/${eid}/ticket-types/VIP`, { attention: true, checkin_text: 'Escort to box 4' });
    const { tickets } = await admin<{ tickets: { ticket_token: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [
        { holder_name: 'Ada Lovelace', ticket_type: 'General admission' },
        { holder_name: 'Grace Hopper', ticket_type: 'General admission' },
        { holder_name: 'Hedy Lamarr', ticket_type: 'VIP' },
      ],
    });
    const [ada, grace, hedy] = tickets.map((ticket) => ticket.ticket_token);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await recordTones(context);
      await page.reload();
      await enrolled(page);
      await page.getByLabel('Ticket code').focus();

      // Two codes one after the other, with no touch between them.
      await gunScan(page, ada!);
      assert.match(await verdictMatching(page, /#1/), /^Admit\s+#1\s+Ada Lovelace/);
      assert.equal(await page.getByLabel('Ticket code').inputValue(), '', 'the field is emptied');
      assert.equal(await focusedId(page), 'ticket-code');
      const admitTone = await tonesSince(page);
      await gunScan(page, grace!);
      assert.match(await verdictMatching(page, /#2/), /^Admit\s+#2\s+Grace Hopper/);
      assert.equal(await focusedId(page), 'ticket-code');
      assert.equal(await tonesSince(page), admitTone, 'every admit sounds the same');

      await enterCode(page, ada!);
      assert.match(await verdictMatching(page, /already used/), /^Reject/);
      const rejectTone = await tonesSince(page);
      await enterCode(page, hedy!);
      assert.match(await verdictMatching(page, /#3/), /^Admit\s+#3\s+Hedy Lamarr · VIP\s*Attention\s*Escort to box 4/);
      const attentionTone = await tonesSince(page);
      assert.equal(await focusedId(page), 'ticket-code');

      assert.notEqual(admitTone, '', 'an admit makes a sound');
      assert.equal(
        new Set([admitTone, rejectTone, attentionTone]).size,
        3,
        `${admitTone} | ${rejectTone} | ${attentionTone}`,
      );
      // Told apart by the number of notes too, not only by pitch.
      const notes = (tones: string) => tones.split(', ').length;
      assert.equal(new Set([notes(admitTone), notes(rejectTone), notes(attentionTone)]).size, 3);

      // The attention verdict, as gate staff see it at arm's length.
      await page.screenshot({ path: '/tmp/scan-attention-375.png', fullPage: true });
      assert.equal(await page.getByTestId('verdict').getAttribute('data-attention'), 'true');
      assert.deepEqual(await seriousViolations(page), []);
      assert.ok(await fitsWidth(page));
    } finally {
      await context.close();
    }
  });

  it('keeps Sound off on this device across a reload, and plays nothing then', async () => {
    const eid = await createEvent(issuer, 'Quiet Night');
    const { tickets } = await admin<{ tickets: { ticket_token: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: ['Ada Lovelace', 'Grace Hopper'].map((holder_name) => ({
        holder_name,
        ticket_type: 'General admission',
      })),
    });
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await recordTones(context);
      const sound = page.getByRole('button', { name: 'Sound' });
      assert.equal(await sound.getAttribute('aria-pressed'), 'true', 'sound is on at first');
      await sound.click();
      assert.equal(await sound.getAttribute('aria-pressed'), 'false');

      await page.reload();
      await enrolled(page);
      assert.equal(await sound.getAttribute('aria-pressed'), 'false', 'still off after a reload');
      assert.deepEqual(await seriousViolations(page), [], 'the switch off');
      await enterCode(page, tickets[0]!.ticket_token);
      await verdictMatching(page, /Ada Lovelace/);
      assert.equal(await tonesSince(page), '', 'muted: no tone');

      await sound.click();
      assert.equal(await sound.getAttribute('aria-pressed'), 'true');
      await enterCode(page, tickets[1]!.ticket_token);
      await verdictMatching(page, /Grace Hopper/);
      assert.notEqual(await tonesSince(page), '', 'sound on again: a tone');
      await page.reload();
      await enrolled(page);
      assert.equal(await sound.getAttribute('aria-pressed'), 'true');
    } finally {
      await context.close();
    }
  });
});
