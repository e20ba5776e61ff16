import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
  startScanIssuer,
  verdictOf,
  webScannerLink,
  type RunningIssuer,
} from './harness.ts';

const skip = browserSkipReason() ?? false;

/**
 * Everything a page could read outside IndexedDB, and IndexedDB's raw records, as text. Plain
 * JavaScript in a string: the test's own compiler would wrap functions in helpers the page lacks.
 */
const READ_EVERYTHING = `(async () => {
  const area = (a) => JSON.stringify(Object.fromEntries(Object.entries(a)));
  const cached = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) cached.push(request.url);
  }
  const text = (value) =>
    value instanceof ArrayBuffer || ArrayBuffer.isView(value)
      ? new TextDecoder().decode(value)
      : value instanceof CryptoKey
        ? 'CryptoKey extractable=' + value.extractable
        : typeof value === 'object' && value !== null
          ? Object.values(value).map(text).join(' ')
          : String(value);
  const idb = [];
  for (const info of await indexedDB.databases()) {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open(info.name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    for (const store of Array.from(db.objectStoreNames)) {
      const records = await new Promise((resolve, reject) => {
        const request = db.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      idb.push(...records.map(text));
    }
    db.close();
  }
  return {
    local: area(localStorage),
    session: area(sessionStorage),
    cookies: document.cookie,
    url: location.href,
    cached: cached.join(' '),
    idb: idb.join('\\n'),
  };
})()`;

async function whatThePageKeeps(
  page: Page,
): Promise<Record<'local' | 'session' | 'cookies' | 'url' | 'cached' | 'idb', string>> {
  return page.evaluate(READ_EVERYTHING);
}

describe('enrolling the web scanner', { skip }, () => {
  let issuer: RunningIssuer;
  let browser: Browser;
  let eid: string;

  before(async () => {
    issuer = await startScanIssuer();
    browser = await launchBrowser();
    eid = await createEvent(issuer, 'Harbour Nights');
  });
  after(async () => {
    await browser?.close();
    await issuer?.close();
  });

  it('shows only the Setup code until enrolled', async () => {
    const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Enrol' }).count(), 1);
      assert.equal(await page.getByRole('button', { name: 'Scan setup code' }).count(), 1);
      assert.equal(await page.getByLabel('Ticket code').count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Start camera' }).count(), 0);
    } finally {
      await context.close();
    }
  });

  it('enrols at once from a #setup= link, leaves the address, and keeps the key only encrypted in IndexedDB', async () => {
    const link = await webScannerLink(issuer, eid);
    const { context, page, foreign } = await openPhone(browser, link);
    try {
      await enrolled(page);
      assert.equal(await page.getByLabel('Setup code').count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Start camera' }).count(), 1);
      await page.getByText('Harbour Nights').first().waitFor();
      assert.equal(new URL(page.url()).hash, '', 'the setup link left the address');

      const [scanner] = await (
        await fetch(`${issuer.url}/admin/v1/events/${eid}/scanners`, {
          headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
        })
      )
        .json()
        .then((body: { scanners: { name: string; platform: string }[] }) => body.scanners);
      assert.match(scanner!.platform, /^web-scanner\//);

      const kept = await whatThePageKeeps(page);
      for (const [where, text] of Object.entries(kept)) {
        assert.doesNotMatch(text, /sk_live_/, `an API key in ${where}`);
        assert.doesNotMatch(text, /st_[A-Za-z0-9_-]{20}/, `the setup token in ${where}`);
      }
      assert.match(kept.idb, /CryptoKey extractable=false/, 'a non-extractable key encrypts the API key');
      assert.deepEqual(foreign, [], 'no request to another origin');
    } finally {
      await context.close();
    }
  });

  it('takes the setup URI or the whole link in the Setup code field', async () => {
    for (const form of ['uri', 'link'] as const) {
      const link = await webScannerLink(issuer, eid);
      const uri = decodeURIComponent(link.slice(link.indexOf('#setup=') + '#setup='.length));
      const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
      try {
        await page.getByLabel('Setup code').fill(form === 'uri' ? uri : link);
        await page.getByRole('button', { name: 'Enrol' }).click();
        await enrolled(page);
      } finally {
        await context.close();
      }
    }
  });

  it('names the scanner as typed in Scanner name: in the console and in the page’s header', async () => {
    const link = await webScannerLink(issuer, eid, 'north');
    const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').fill(link);
      await page.getByLabel('Scanner name').fill('North door, left');
      await page.getByRole('button', { name: 'Enrol' }).click();
      await enrolled(page);
      await page.locator('header').getByText('North door, left').waitFor();
      const { scanners } = await admin<{ scanners: { name: string; gate_id: string }[] }>(
        issuer,
        'GET',
        `/events/${eid}/scanners`,
      );
      assert.ok(
        scanners.some((scanner) => scanner.name === 'North door, left' && scanner.gate_id === 'north'),
        JSON.stringify(scanners),
      );
    } finally {
      await context.close();
    }
  });

  it('sends no name of its own when Scanner name is left empty, so that the issuer names the scanner', async () => {
    const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').waitFor();
      assert.equal(await page.getByLabel('Scanner name').inputValue(), '');
      const enrolment = page.waitForRequest((request) => request.url().endsWith('/api/v1/scanners/enroll'));
      await page.goto(await webScannerLink(issuer, eid));
      const body = (await enrolment).postDataJSON() as { scanner_name?: string };
      assert.equal(body.scanner_name, undefined, `the page sent the name ${JSON.stringify(body.scanner_name)}`);
      await enrolled(page);
      assert.equal(await page.getByText('Web scanner', { exact: true }).count(), 0, 'no name made up');
      // The issuer's own name for it (after its gate, or "Scanner N") shows in the header.
      await page
        .locator('header')
        .getByText(/(phone|Scanner) \d+/)
        .waitFor();
    } finally {
      await context.close();
    }
  });

  it('says in words why a used setup code does not enrol, and what to do', async () => {
    const link = await webScannerLink(issuer, eid);
    const first = await openPhone(browser, link);
    await enrolled(first.page);
    await first.context.close();
    const { context, page } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').fill(link);
      await page.getByRole('button', { name: 'Enrol' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Enrolment failed' });
      await alert.waitFor();
      const said = (await alert.textContent()) ?? '';
      assert.match(said, /This setup code was already used/);
      assert.match(said, /Ask the organizer for a new one \(console: the event’s Scanners, New enrolment token\)/);
      assert.doesNotMatch(said, /\b400\b|INVALID_TOKEN/, 'no status or error code');
      assert.doesNotMatch(said, /st_[A-Za-z0-9_-]{20}/, 'the token is not repeated');
      assert.equal(await page.getByLabel('Ticket code').count(), 0);
      assert.deepEqual(await seriousViolations(page), [], 'the setup view with its alert');
    } finally {
      await context.close();
    }
  });

  it('says a revoked setup code was revoked, from its link as from the field', async () => {
    const token = await admin<{ token_id: string; web_scanner_url: string }>(
      issuer,
      'POST',
      `/events/${eid}/enrollment-tokens`,
      {},
    );
    await admin(issuer, 'POST', `/enrollment-tokens/${token.token_id}/revoke`);
    const { context, page } = await openPhone(browser, token.web_scanner_url);
    try {
      const alert = page.getByRole('alert').filter({ hasText: 'Enrolment failed' });
      await alert.waitFor();
      const said = (await alert.textContent()) ?? '';
      assert.match(said, /This setup code was revoked in the console\. Ask the organizer for a new one/);
      assert.doesNotMatch(said, /\b403\b|TOKEN_REVOKED/);
      await page.getByLabel('Setup code').waitFor();
    } finally {
      await context.close();
    }
  });

  it('asks before a #setup= link replaces an enrolment, and keeps it when told to', async () => {
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      const other = await createEvent(issuer, 'Second Stage');
      await page.goto(await webScannerLink(issuer, other));
      const dialog = page.getByRole('dialog', { name: 'Replace this device’s enrolment?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Keep current enrolment' }).click();
      await page.getByText('Harbour Nights').first().waitFor();
      assert.equal(new URL(page.url()).hash, '');

      await page.goto(await webScannerLink(issuer, other));
      await dialog.getByRole('button', { name: 'Replace enrolment' }).click();
      await page.getByText('Second Stage').first().waitFor();
    } finally {
      await context.close();
    }
  });

  it('refuses to forget the device while scans wait, and forgets it once they are synced', async () => {
    const [ticket] = await issueTickets(issuer, eid, ['Grace Hopper']);
    const { context, page } = await openPhone(browser, await webScannerLink(issuer, eid));
    try {
      await enrolled(page);
      await context.setOffline(true);
      await checkCode(page, ticket!.ticket_token);
      await verdictOf(page, 'Admit');
      const forget = page.getByRole('button', { name: 'Forget this device' });
      assert.equal(await forget.isDisabled(), true);
      await page.getByText('1 scan waits for the issuer').waitFor();

      await context.setOffline(false);
      await page.waitForFunction(() => document.querySelector('[data-testid="queued"]')?.textContent === '0', null, {
        timeout: 15_000,
      });
      page.once('dialog', (dialog) => void dialog.accept());
      await forget.click();
      await page.getByLabel('Setup code').waitFor();
      const kept = await whatThePageKeeps(page);
      assert.doesNotMatch(kept.idb, /Harbour Nights/, 'nothing of the enrolment is left');
    } finally {
      await context.close();
    }
  });
});
