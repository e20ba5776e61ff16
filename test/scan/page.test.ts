import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import {
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

describe('the web scanner’s files', () => {
  let issuer: RunningIssuer;
  before(async () => {
    issuer = await startScanIssuer();
  });
  after(async () => issuer?.close());

  it('serves /scan/ with a CSP that runs only its own scripts and WebAssembly', async () => {
    const res = await fetch(`${issuer.url}/scan/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const scriptSrc = csp.split(';').find((part) => part.trim().startsWith('script-src')) ?? '';
    assert.match(scriptSrc, /'self'/);
    assert.doesNotMatch(scriptSrc, /'unsafe-inline'|'unsafe-eval'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin');
  });

  it('redirects /scan to /scan/ and answers 404 for a name that is no file', async () => {
    const redirect = await fetch(`${issuer.url}/scan`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/scan/');
    for (const name of ['nothing.js', '__proto__', 'constructor', 'sources.json', '../package.json']) {
      const res = await fetch(`${issuer.url}/scan/${name}`);
      assert.equal(res.status, 404, name);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    }
  });

  it('serves the manifest, the service worker and the QR decoder’s WASM from the issuer itself', async () => {
    const manifest = (await (await fetch(`${issuer.url}/scan/manifest.webmanifest`)).json()) as Record<string, unknown>;
    assert.equal(manifest.start_url, '/scan/');
    assert.ok(Array.isArray(manifest.icons) && manifest.icons.length > 0);
    const worker = await fetch(`${issuer.url}/scan/sw.js`);
    assert.equal(worker.status, 200);
    assert.match(worker.headers.get('content-type') ?? '', /javascript/);
    const source = await worker.text();
    assert.doesNotMatch(source, /__VERSION__|__FILES__/, 'the build filled the worker in');
    for (const file of JSON.parse(/const FILES = (\[.*?\]);/.exec(source)![1]!) as string[]) {
      assert.equal((await fetch(new URL(file, `${issuer.url}/scan/`))).status, 200, `precached ${file}`);
    }
    const wasm = await fetch(`${issuer.url}/scan/zxing_reader.wasm`);
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    assert.deepEqual([...new Uint8Array((await wasm.arrayBuffer()).slice(0, 4))], [0, 0x61, 0x73, 0x6d]);
  });
});

describe('the web scanner in Chromium at 375 px', { skip }, () => {
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

  it('has no serious or critical axe-core violation and no sideways scrolling, before and after enrolment', async () => {
    const eid = await createEvent(issuer, 'A Festival With A Rather Long Name For A Small Phone Screen');
    const [ticket] = await issueTickets(issuer, eid, ['Bartholomew Maximilian Featherstonehaugh-Cholmondeley']);
    const { context, page, foreign } = await openPhone(browser, `${issuer.url}/scan/`);
    try {
      await page.getByLabel('Setup code').waitFor();
      assert.deepEqual(await seriousViolations(page), [], 'setup view');
      assert.ok(await fitsWidth(page), 'setup view fits 375 px');

      await page.goto(await webScannerLink(issuer, eid));
      await enrolled(page);
      await checkCode(page, ticket!.ticket_token);
      await verdictOf(page, 'Admit');
      assert.deepEqual(await seriousViolations(page), [], 'scan view with an Admit');
      assert.ok(await fitsWidth(page), 'scan view fits 375 px');
      await checkCode(page, ticket!.ticket_token);
      await verdictOf(page, 'Reject');
      assert.deepEqual(await seriousViolations(page), [], 'scan view with a Reject');
      assert.deepEqual(foreign, [], 'no request to another origin');
    } finally {
      await context.close();
    }
  });
});
