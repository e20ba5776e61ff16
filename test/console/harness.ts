import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import type { App } from '../../src/http/context.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, LogSink, NO_LIMITS } from '../helpers/app.ts';
import { REQUIRE_SERVICES } from '../helpers/services.ts';

export { ADMIN_TOKEN };

/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or undefined when they can. Without Chromium they are
 * skipped loudly, unless REQUIRE_SERVICES=1 (CI), where that is a failure.
 */
export function browserSkipReason(): string | undefined {
  if (skipReason !== null) return skipReason.reason;
  skipReason = { reason: findSkipReason() };
  return skipReason.reason;
}

let skipReason: { reason: string | undefined } | null = null;

function findSkipReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium not found at ${CHROMIUM_PATH} (install Debian's chromium or set CHROMIUM_PATH)`;
  if (REQUIRE_SERVICES) {
    it('Chromium is installed (REQUIRE_SERVICES=1)', () => assert.fail(reason));
    return reason;
  }
  process.stderr.write(`\n!!! ${reason}: browser tests SKIPPED\n\n`);
  return reason;
}

export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A real issuer listening on a loopback port, on a SQLite store of its own. */
export interface RunningIssuer {
  app: App;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/**
 * `port`: listen there, with BASE_URL naming it (what a scanner enrolled from a setup code talks to);
 * otherwise any free port, with BASE_URL http://127.0.0.1. `env`: further configuration variables.
 */
export async function startIssuer(
  options: { store?: Store; port?: number; env?: Record<string, string> } = {},
): Promise<RunningIssuer> {
  // Plain http on loopback, as an organizer's laptop at a venue would run it.
  const baseUrl = options.port === undefined ? 'http://127.0.0.1' : `http://127.0.0.1:${options.port}`;
  const config = loadConfig({ ADMIN_TOKEN, BASE_URL: baseUrl, LOG_LEVEL: 'warn', ...NO_LIMITS, ...options.env });
  const store = options.store ?? new SqliteStore(':memory:');
  const app = await buildApp(config, {
    store,
    keyEncryptionKey: Buffer.alloc(32, 7),
    adminTokenHash: hashSecret(ADMIN_TOKEN),
    logStream: new LogSink(),
  });
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    store,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** The admin API with the bearer token, as a script uses it. */
export async function admin<T = Record<string, unknown>>(
  issuer: RunningIssuer,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${issuer.url}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An event created through the admin API, starting tomorrow. */
export async function createEvent(issuer: RunningIssuer, name: string): Promise<string> {
  const date = new Date(Date.now() + 24 * 3600_000).toISOString();
  return (await admin<{ eid: string }>(issuer, 'POST', '/events', { name, event_date: date })).eid;
}

/** Enrols a scanner with a setup token's secret; answers its API key and ids. */
export async function enrollWith(issuer: RunningIssuer, token: string, gate?: string) {
  const scannerId = randomUUID();
  const res = await fetch(`${issuer.url}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token,
      scanner_id: scannerId,
      scanner_name: `Gate ${gate ?? 'any'} phone`,
      scanner_platform: 'test',
    }),
  });
  if (res.status !== 200) throw new Error(`enroll: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { api_key: string; api_key_id: string };
  return { apiKey: body.api_key, apiKeyId: body.api_key_id, scannerId };
}

/** Checks a ticket in through the scanner API, as a gate would. */
export async function checkIn(
  issuer: RunningIssuer,
  scanner: { apiKey: string; scannerId: string },
  eid: string,
  tid: string,
  gate?: string,
) {
  const res = await fetch(`${issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify({
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      ...(gate ? { gate_id: gate } : {}),
      idempotency_key: randomUUID(),
    }),
  });
  return { status: res.status, body: (await res.json()) as { status: string } };
}

/** A fresh browser context (its own cookies), its page, and the console opened in it. */
export async function openConsole(
  browser: Browser,
  issuer: RunningIssuer,
  options: { width?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${issuer.url}/console/`);
  return { context, page };
}

/** Signs in with the admin token through the form, as an organizer does (its form first, when not shown). */
export async function signIn(page: Page, token = ADMIN_TOKEN): Promise<void> {
  await useAdminToken(page);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Puts the admin token's form in place of the email and password, unless it is there already. */
export async function useAdminToken(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Sign in with the admin token' });
  await page.getByLabel('Admin token').or(toggle).first().waitFor();
  if (await toggle.isVisible()) await toggle.click();
}

/** Signs a person in with their email and password through the form. */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The state of the console's session cookie in a browser context. */
export async function sessionCookie(context: BrowserContext) {
  return (await context.cookies()).find((c) => c.name === 'issuer_console_session');
}

/** A test that needs Chromium: skipped one by one (so the runner counts each as skipped) when there is none. */
export function browserTest(name: string, fn: () => Promise<void>): void {
  it(name, { skip: browserSkipReason() ?? false }, fn);
}

/**
 * A browser and an issuer for one test file, opened before its tests and closed after (not without
 * Chromium). `env`: configuration variables for the issuer (e.g. WEBHOOK_ALLOW_PRIVATE).
 */
export function consoleFixture(env: Record<string, string> = {}): {
  browser: () => Browser;
  issuer: () => RunningIssuer;
  open: () => Promise<void>;
  close: () => Promise<void>;
} {
  let browser: Browser | null = null;
  let issuer: RunningIssuer | null = null;
  return {
    browser: () => browser ?? assert.fail('no browser'),
    issuer: () => issuer ?? assert.fail('no issuer'),
    open: async () => {
      if (browserSkipReason() !== undefined) return;
      issuer = await startIssuer({ env });
      browser = await launchBrowser();
    },
    close: async () => {
      await browser?.close();
      await issuer?.close();
    },
  };
}
