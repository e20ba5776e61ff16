import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { testIssuer, type TestIssuer } from './app.ts';
import { freshDatabase } from './services.ts';

/**
 * Registers the hooks of a suite that runs two issuer apps on one fresh PostgreSQL database (unless
 * `skip`), closing both and dropping the database afterwards. Call it inside `describe`; the
 * returned function gives the two apps once the suite's `before` hooks have run.
 */
export function twoIssuersOnOneDatabase(
  availability: { problem: string | null; skip: string | undefined },
  clock: FixedClock,
): () => { a: TestIssuer; b: TestIssuer } {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let issuers: { a: TestIssuer; b: TestIssuer } | undefined;
  before(async () => {
    if (availability.skip !== undefined) return;
    if (availability.problem !== null) {
      assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${availability.problem}`);
    }
    database = await freshDatabase();
    const a = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    const b = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    issuers = { a, b };
  });
  after(async () => {
    await issuers?.a.close();
    await issuers?.b.close();
    await database?.drop();
  });
  return () => issuers ?? assert.fail('the two issuers are not open');
}
