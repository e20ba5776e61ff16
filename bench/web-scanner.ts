/**
 * The web scanner in Chromium (playwright-core, Debian's chromium): what a phone downloads on the
 * first visit, and how long a verdict takes to show, online and offline, from **Check** and from a
 * QR code in front of the (fake) camera. The issuer runs as `npm start` runs it; beside it a bare
 * node:http server answers one fetch from the same page, the network's floor for an online verdict.
 * Targets (CONTRACT.md): an offline verdict within 300 ms; the first load at most 500 KB besides
 * the WASM decoder.
 *
 * Run: node --import tsx bench/web-scanner.ts [samples]   (default 30). Prints tables; never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { fakeCameraArgs, writeVideo } from '../test/helpers/fake-camera.ts';
import { startBare, startIssuer } from './processes.ts';

const SAMPLES = Number(process.argv[2] ?? 30);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const row = (name: string, values: number[]) =>
  `| ${name} | ${values.length} | ${quantile(values, 0.5).toFixed(1)} | ${quantile(values, 0.95).toFixed(1)} | ${Math.max(...values).toFixed(1)} |`;

const issuer = await startIssuer(null);
const bare = await startBare();
const dir = mkdtempSync(join(tmpdir(), 'bench-web-scanner-'));

/** Bytes over the wire for every response of a first visit (body and headers), by kind. */
async function firstLoad(browser: Browser, url: string): Promise<{ total: number; wasm: number; files: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const done: Promise<void>[] = [];
  let total = 0;
  let wasm = 0;
  let files = 0;
  // The context's requests: the page's and its service worker's (which fetches what it keeps offline).
  context.on('requestfinished', (request) =>
    done.push(
      request.sizes().then((sizes) => {
        const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
        files += 1;
        if (request.url().endsWith('.wasm')) wasm += bytes;
        else total += bytes;
      }),
    ),
  );
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForTimeout(1000);
  await Promise.all(done);
  await context.close();
  return { total, wasm, files };
}

async function enrolledPage(browser: Browser, eid: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  await context.grantPermissions(['camera'], { origin: issuer.url });
  const page = await context.newPage();
  const setup = await issuer.setupUri(eid);
  await page.goto(`${issuer.url}/scan/#setup=${encodeURIComponent(setup)}`);
  await page.getByLabel('Ticket code').waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="last-sync"]')?.hasAttribute('datetime'));
  // The service worker holds the app (the decoder's WASM included) before the network is cut.
  await page.evaluate(() => navigator.serviceWorker.ready);
  return page;
}

/** Milliseconds from **Check** to the verdict's change, measured in the page (no DevTools round trip inside). */
function timeCheck(page: Page, token: string): Promise<number> {
  return page.evaluate(
    (code) =>
      new Promise<number>((resolve) => {
        const verdict = document.querySelector('[data-testid="verdict"]')!;
        const input = document.getElementById('ticket-code') as HTMLInputElement;
        const observer = new MutationObserver(() => {
          observer.disconnect();
          resolve(performance.now() - start);
        });
        observer.observe(verdict, { childList: true, characterData: true, subtree: true });
        input.value = code;
        const start = performance.now();
        (document.querySelector('#check-form button[type="submit"]') as HTMLButtonElement).click();
      }),
    token,
  );
}

/** One fetch of the bare server from a page it served: the floor under an online verdict. */
function timeBareFetch(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const start = performance.now();
    await (await fetch('/floor', { method: 'POST', body: '{}' })).text();
    return performance.now() - start;
  });
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
const eid = await issuer.createEvent('Bench night');
const tickets = await issuer.issue(eid, SAMPLES * 2 + 10);

const cold = await firstLoad(browser, `${issuer.url}/scan/`);

const page = await enrolledPage(browser, eid);
const barePage = await page.context().newPage();
await barePage.goto(bare.url);
const online: number[] = [];
const floor: number[] = [];
for (const ticket of tickets.slice(0, SAMPLES)) {
  floor.push(await timeBareFetch(barePage));
  online.push(await timeCheck(page, ticket.token));
}
await page.context().setOffline(true);
await page.getByText('Offline', { exact: true }).waitFor();
const offline: number[] = [];
for (const ticket of tickets.slice(SAMPLES, SAMPLES * 2)) offline.push(await timeCheck(page, ticket.token));
await page.context().setOffline(false);
await browser.close();

/**
 * The camera: a video of tickets, each after 2 s of a blank wall. In the page, every frame of the
 * camera's stream is drawn small and its brightness read: the frame where a code appears (the wall
 * turns half dark) starts the clock, the verdict's change stops it.
 */
async function cameraLatencies(offlineMode: boolean, count: number, from: number): Promise<number[]> {
  const shots = tickets.slice(from, from + count).flatMap((ticket) => [
    { text: null, seconds: 2 },
    { text: ticket.token, seconds: 1 },
  ]);
  const video = join(dir, `camera-${offlineMode}.y4m`);
  writeVideo(video, shots, { fps: 10 });
  const cameraBrowser = await chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...fakeCameraArgs(video)] });
  try {
    const cameraPage = await enrolledPage(cameraBrowser, eid);
    if (offlineMode) {
      await cameraPage.context().setOffline(true);
      await cameraPage.getByText('Offline', { exact: true }).waitFor();
    }
    await cameraPage.getByRole('button', { name: 'Start camera' }).click();
    await cameraPage.evaluate(WATCH_CAMERA);
    await cameraPage.waitForTimeout(count * 3000 + 3000);
    return await cameraPage.evaluate(() => (window as unknown as { latencies: number[] }).latencies);
  } finally {
    await cameraBrowser.close();
  }
}

/** Plain JavaScript run in the page (the bench's compiler would wrap functions in helpers the page lacks). */
const WATCH_CAMERA = `(() => {
  const latencies = [];
  window.latencies = latencies;
  const camera = document.getElementById('video');
  const canvas = document.createElement('canvas');
  canvas.width = 32;
  canvas.height = 24;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  let appearedAt = null;
  let blank = true;
  const onFrame = () => {
    ctx.drawImage(camera, 0, 0, 32, 24);
    const pixels = ctx.getImageData(0, 0, 32, 24).data;
    let sum = 0;
    for (let i = 0; i < pixels.length; i += 4) sum += pixels[i];
    const dark = sum / (pixels.length / 4) < 200;
    if (dark && blank) appearedAt = performance.now();
    blank = !dark;
    camera.requestVideoFrameCallback(onFrame);
  };
  camera.requestVideoFrameCallback(onFrame);
  new MutationObserver(() => {
    if (appearedAt !== null) latencies.push(performance.now() - appearedAt);
    appearedAt = null;
  }).observe(document.querySelector('[data-testid="verdict"]'), { childList: true });
})()`;

const cameraCount = Math.max(3, Math.min(8, Math.floor(SAMPLES / 3)));
const cameraOnline = await cameraLatencies(false, cameraCount, SAMPLES * 2);
const cameraOffline = await cameraLatencies(true, cameraCount, SAMPLES * 2 + cameraCount);

await issuer.stop();
await bare.stop();
rmSync(dir, { recursive: true, force: true });

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
process.stdout.write(
  [
    '',
    '## Web scanner (Chromium)',
    '',
    `First load of /scan/: ${kb(cold.total)} KB in ${cold.files} responses besides the WASM decoder (${kb(cold.wasm)} KB, fetched by the service worker for offline use). Target: at most 500 KB.`,
    '',
    '| verdict, ms | samples | median | p95 | max |',
    '|---|---:|---:|---:|---:|',
    row('bare node:http fetch from the page (floor)', floor),
    row('online, from Check', online),
    row('offline, from Check (target ≤ 300)', offline),
    row('online, from the QR in front of the camera', cameraOnline),
    row('offline, from the QR in front of the camera', cameraOffline),
    '',
  ].join('\n'),
);
