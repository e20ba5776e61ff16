import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  admin,
  browserSkipReason,
  createEvent,
  launchBrowser,
  startIssuer,
  type RunningIssuer,
} from '../console/harness.ts';
import { freePort } from '../helpers/server.ts';

export { admin, browserSkipReason, createEvent, type RunningIssuer };

/**
 * Builds dist/scan/ when it is not the build of the sources as they are (`npm ci` built it; an edit
 * since makes it stale). Run as its own process, as `npm run build` would be.
 */
export function ensureScannerBuilt(): void {
  const check = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { staleness, build } = await import('./scripts/build.js'); if (staleness('server') !== null) await build();",
    ],
    { encoding: 'utf8' },
  );
  assert.equal(check.status, 0, `the build failed: ${check.stderr}`);
}

/**
 * An issuer whose BASE_URL is the address it listens on, as phones at a venue reach it. `env`: further
 * configuration variables (e.g. a rate limit).
 */
export async function startScanIssuer(env: Record<string, string> = {}): Promise<RunningIssuer> {
  ensureScannerBuilt();
  return startIssuer({ port: await freePort(), env });
}

export interface IssuedTicket {
  tid: string;
  ticket_token: string;
  holder_name: string;
  /** `XXXXX-XXXXX`, printed under the QR code. */
  short_code: string;
}

/** Tickets issued through the admin API, with their QR strings; `orderRef`: all of one order (a group). */
export async function issueTickets(
  issuer: RunningIssuer,
  eid: string,
  holders: string[],
  options: { orderRef?: string } = {},
): Promise<IssuedTicket[]> {
  const order = options.orderRef === undefined ? {} : { order_ref: options.orderRef };
  const body = { tickets: holders.map((holder_name) => ({ holder_name, ticket_type: 'General admission', ...order })) };
  const answer = await admin<{ tickets: IssuedTicket[] }>(issuer, 'POST', `/events/${eid}/tickets`, body);
  return answer.tickets;
}

/** A fresh enrolment token's web scanner link (`/scan/#setup=…`), as the console's second QR code holds it. */
export async function webScannerLink(issuer: RunningIssuer, eid: string, gate?: string): Promise<string> {
  const answer = await admin<{ web_scanner_url: string }>(
    issuer,
    'POST',
    `/events/${eid}/enrollment-tokens`,
    gate ? { gate_id: gate } : {},
  );
  return answer.web_scanner_url;
}

/**
 * A phone: a browser context of its own (its own IndexedDB), 375 px wide unless told; `clockShiftMs`:
 * its clock runs that far ahead of the real one (behind when negative).
 */
export async function openPhone(
  browser: Browser,
  url: string,
  options: { width?: number; height?: number; clockShiftMs?: number } = {},
): Promise<{ context: BrowserContext; page: Page; foreign: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 375, height: options.height ?? 800 },
  });
  if (options.clockShiftMs) await context.addInitScript(shiftClock(options.clockShiftMs));
  await context.grantPermissions(['camera'], { origin: new URL(url).origin });
  const page = await context.newPage();
  // Every request to another origin than the issuer's: there must be none.
  const foreign: string[] = [];
  const origin = new URL(url).origin;
  context.on('request', (request) => {
    const target = request.url();
    if (!target.startsWith(origin) && !target.startsWith('data:') && !target.startsWith('blob:')) foreign.push(target);
  });
  await page.goto(url);
  return { context, page, foreign };
}

/**
 * A script run in the page before its own: `Date` (now, and `new Date()`) runs `shift` ms off the real
 * clock. A string, not a function: the test runner's transform would add helpers the page lacks.
 */
function shiftClock(shift: number): string {
  return `{
    const RealDate = Date;
    const shift = ${Number(shift)};
    class ShiftedDate extends RealDate {
      constructor(...args) { if (args.length === 0) super(RealDate.now() + shift); else super(...args); }
      static now() { return RealDate.now() + shift; }
    }
    globalThis.Date = ShiftedDate;
  }`;
}

/** What the verdict area's text starts with: a verdict's word, or what it says between verdicts. */
export type VerdictWord = 'Admit' | 'Exit' | 'Reject' | 'Already out' | 'Ready' | 'Enrol again';

/** The verdict's text once it starts with `word` (Admit, Exit or Reject; Ready between verdicts). */
export async function verdictOf(page: Page, word: VerdictWord, timeout = 10_000): Promise<string> {
  const verdict = page.getByTestId('verdict');
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="verdict"]')?.textContent?.trim().startsWith(expected),
    word,
    { timeout },
  );
  return ((await verdict.textContent()) ?? '').trim();
}

/**
 * Waits until the verdict's text matches `pattern`, then returns it: unlike `verdictOf`, it cannot take
 * the verdict shown before (a second Admit after a first).
 */
export async function verdictMatching(page: Page, pattern: RegExp): Promise<string> {
  await page.getByTestId('verdict').filter({ hasText: pattern }).waitFor({ timeout: 10_000 });
  return ((await page.getByTestId('verdict').textContent()) ?? '').trim();
}

/** Types a ticket code and presses **Check**. */
export async function checkCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Ticket code').fill(code);
  await page.getByRole('button', { name: 'Check' }).click();
}

/** Waits until the page shows it is enrolled (the **Ticket code** field). */
export async function enrolled(page: Page): Promise<void> {
  await page.getByLabel('Ticket code').waitFor({ timeout: 15_000 });
}

/** Waits until the page shows `Online` or `Offline` (after `context.setOffline`, the page must know). */
export async function network(page: Page, state: 'Online' | 'Offline'): Promise<void> {
  await page.locator('#network').getByText(state, { exact: true }).waitFor({ timeout: 15_000 });
}

/** Waits until no scan waits for the issuer (the queue synced by itself). */
export async function queueSynced(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
    timeout,
  });
}

/**
 * With SCAN_SHOTS set (a folder), the page as it is now at 1280×800 and at 375×667, as
 * `<name>-1280x800.png` and `<name>-375x667.png`, `shown` scrolled into view (the verdict unless
 * told); the window is given back its size after.
 */
export async function screenshots(page: Page, name: string, shown?: Locator): Promise<void> {
  const folder = process.env.SCAN_SHOTS;
  if (!folder) return;
  const size = page.viewportSize();
  for (const [width, height] of [
    [1280, 800],
    [375, 667],
  ] as const) {
    await page.setViewportSize({ width, height });
    await (shown ?? page.getByTestId('verdict')).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${folder}/${name}-${width}x${height}.png` });
  }
  if (size) await page.setViewportSize(size);
}

export { launchBrowser };
