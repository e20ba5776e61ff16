import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import type { App } from '../../src/http/context.ts';
import type { WalletLinks } from '../../src/holder/page.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

/** The 4xx codes of the spec's error table, written out here rather than taken from the code under test. */
export const SPEC_CLIENT_ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_TOKEN',
  'PROTOCOL_VERSION_UNSUPPORTED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'TOKEN_REVOKED',
  'NOT_FOUND',
  'IDEMPOTENCY_CONFLICT',
  'RATE_LIMITED',
];

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const BASE_URL = 'https://issuer.test';
/** Tests run at a fixed instant; move `clock` to test time windows. */
export const T0 = '2026-06-01T12:00:00.000Z';

/** Collects every log line the app writes. */
export class LogSink extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestIssuer {
  app: App;
  store: Store;
  clock: FixedClock;
  logs: LogSink;
  config: Config;
  close(): Promise<void>;
}

/**
 * Limits high enough not to interfere, and four password hashes at once (libuv's four threads, as
 * hashing had before its own pool: tests sign in several people at once); the tests of a limit set
 * their own.
 */
export const NO_LIMITS: Record<string, string> = {
  ...Object.fromEntries(
    [
      'RATE_LIMIT_ENROLL_PER_IP',
      'RATE_LIMIT_ENROLL_PER_TOKEN',
      'RATE_LIMIT_CHECKIN_PER_KEY',
      'RATE_LIMIT_STATUS_PER_KEY',
      'RATE_LIMIT_ADMIN_PER_TOKEN',
      'RATE_LIMIT_NOT_FOUND_PER_IP',
      'RATE_LIMIT_AUTH_FAILURES_PER_IP',
      'RATE_LIMIT_SIGNIN_PER_IP',
      'RATE_LIMIT_SCANS_PER_KEY',
    ].map((name) => [name, '1000000']),
  ),
  PASSWORD_HASH_CONCURRENCY: '4',
};

/** Builds the app on an in-memory SQLite store (or the given one), frozen at T0. */
export async function testIssuer(
  options: {
    env?: Record<string, string>;
    store?: Store;
    clock?: FixedClock;
    redis?: Redis;
    wallets?: WalletLinks;
  } = {},
): Promise<TestIssuer> {
  const config = loadConfig({ BASE_URL, ADMIN_TOKEN, LOG_LEVEL: 'debug', ...NO_LIMITS, ...options.env });
  const store = options.store ?? new SqliteStore(':memory:');
  const clock = options.clock ?? new FixedClock(T0);
  const logs = new LogSink();
  const app = await buildApp(config, {
    store,
    clock,
    keyEncryptionKey: Buffer.alloc(32, 7),
    adminTokenHash: hashSecret(ADMIN_TOKEN),
    logStream: logs,
    redis: options.redis ?? null,
    ...(options.wallets ? { wallets: options.wallets } : {}),
  });
  return {
    app,
    store,
    clock,
    logs,
    config,
    close: async () => {
      await app.close();
      await store.close();
      options.redis?.disconnect();
    },
  };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Calls the admin API and returns the parsed JSON body, failing on an unexpected status. */
export async function adminCall<T = Record<string, unknown>>(
  app: App,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  expected = method === 'POST' && !url.endsWith('/revoke') ? 201 : 200,
): Promise<T> {
  const res = await app.inject({
    method,
    url,
    headers: admin,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (res.statusCode !== expected) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}

export interface Scenario {
  eid: string;
  tid: string;
  ticketToken: string;
  apiKey: string;
  apiKeyId: string;
  scannerId: string;
}

/**
 * An event starting a day after T0, one ticket, and an enrolled scanner (optionally gate-scoped). The
 * event has no end, so no date bounds its tickets (scans of any day are judged by the rest of the
 * rules); its scanner's key expires at 2026-06-04T02:00Z.
 */
export async function scenario(
  app: App,
  options: { gateId?: string; ticket?: Record<string, unknown> } = {},
): Promise<Scenario> {
  const event = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: 'Summer Festival',
    event_date: '2026-06-02T18:00:00Z',
  });
  const ticket = await adminCall<{ tid: string; ticket_token: string }>(
    app,
    'POST',
    `/admin/v1/events/${event.eid}/tickets`,
    {
      holder_name: 'Ada Lovelace',
      ticket_type: 'GA',
      ...options.ticket,
    },
  );
  const scannerId = randomUUID();
  const enrolled = await enrollScanner(app, event.eid, scannerId, options.gateId, {
    key_expires_at: '2026-06-04T02:00:00Z',
  });
  return { eid: event.eid, tid: ticket.tid, ticketToken: ticket.ticket_token, scannerId, ...enrolled };
}

/** Creates an enrolment token for the event (with `token`'s fields) and enrols a scanner with it. */
export async function enrollScanner(
  app: App,
  eid: string,
  scannerId: string = randomUUID(),
  gateId?: string,
  token: Record<string, unknown> = {},
): Promise<{ apiKey: string; apiKeyId: string }> {
  const created = await adminCall<{ token: string }>(app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, {
    ...(gateId ? { gate_id: gateId } : {}),
    ...token,
  });
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/scanners/enroll',
    payload: { token: created.token, scanner_id: scannerId, scanner_name: 'Gate A iPad', scanner_platform: 'iOS 19' },
  });
  if (res.statusCode !== 200) throw new Error(`enroll: ${res.statusCode} ${res.body}`);
  const body = res.json() as { api_key: string; api_key_id: string };
  return { apiKey: body.api_key, apiKeyId: body.api_key_id };
}

/** A check-in request body for the scenario at the clock's now, with a fresh idempotency key. */
export function checkInBody(
  s: Scenario,
  scannedAt: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    tid: s.tid,
    eid: s.eid,
    scanned_at: scannedAt,
    scanner_id: s.scannerId,
    idempotency_key: randomUUID(),
    ...extra,
  };
}

/** POSTs a check-in with the scenario's API key. */
export function postCheckIn(app: App, apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    payload: body as object,
  });
}
