import { randomBytes } from 'node:crypto';
import { it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Redis for the tests that need a real one. When no server answers, those tests are skipped with a
 * loud warning, unless REQUIRE_SERVICES=1 (set by .ci/run), where that is a failure.
 */
export async function redisForTests(): Promise<
  { available: true; client: () => Promise<Redis> } | { available: false; reason: string }
> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    probe.disconnect();
  } catch (error) {
    probe.disconnect();
    const reason = `Redis not reachable at ${REDIS_URL} (${(error as Error).message})`;
    if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${reason}; REQUIRE_SERVICES=1 forbids skipping`);
    process.stderr.write(`\n!!! ${reason}: Redis tests SKIPPED\n\n`);
    return { available: false, reason };
  }
  return {
    available: true,
    client: async () => {
      const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        client.once('error', reject);
      });
      return client;
    },
  };
}

// PostgreSQL: tests that need it use a fresh database of their own on the server at TEST_DATABASE_URL.

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REQUIRE_SERVICES = process.env.REQUIRE_SERVICES === '1';

/** The server address without credentials, for messages. */
export function shown(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Why the server cannot be used, or null when it answers. */
export async function unreachableBecause(): Promise<string | null> {
  try {
    await withAdmin((client) => client.query('SELECT 1'));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A fresh, empty database for this run; its URL and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `issuer_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * `it`, skipped with `reason` when a service is missing. A skipped `describe` would hide its tests
 * from the runner's summary; skipping each test keeps every one of them counted as skipped.
 */
export function itUnless(
  reason: string | undefined,
): (name: string, fn: (t: TestContext) => Promise<void> | void) => void {
  return (name, fn) => it(name, { skip: reason ?? false }, fn);
}

/**
 * Whether a file's PostgreSQL tests run: `problem` is why the server cannot be used (null when it
 * answers); `skip` is set only when it cannot and REQUIRE_SERVICES is off, and is then said loudly.
 */
export async function postgresAvailability(
  what: string,
): Promise<{ problem: string | null; skip: string | undefined }> {
  const problem = await unreachableBecause();
  if (problem !== null && !REQUIRE_SERVICES) {
    process.stderr.write(`\n!!! PostgreSQL not reachable at ${shown(ADMIN_URL)}: ${what} SKIPPED\n\n`);
  }
  return { problem, skip: problem !== null && !REQUIRE_SERVICES ? `PostgreSQL not reachable (${problem})` : undefined };
}
