import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { AppDeps } from '../../src/app.ts';
import type { Store } from '../../src/store/store.ts';
import { testIssuer, type TestIssuer } from './app.ts';
import { freshDatabase, itUnless, postgresAvailability } from './services.ts';

/** What a suite run on one backend gets: its `it` (skipped when the backend is missing) and its issuer. */
export interface BackendRun {
  /** `SQLite` or `PostgreSQL`. */
  backend: string;
  /** Why this backend's tests are skipped (its hooks should do nothing then), or undefined. */
  skip: string | undefined;
  it: ReturnType<typeof itUnless>;
  /** The app on this backend, frozen at T0 (open once the suite's `before` hooks have run). */
  issuer: () => TestIssuer;
}

/** How the suite's issuer is built: its store seen through `wrapStore` (default: as it is), its settings. */
export interface BackendOptions {
  wrapStore?: (store: Store) => Store;
  env?: Record<string, string>;
  /** Further dependencies of the app (see testIssuer); a function, called when the suite's issuer is built. */
  deps?: () => Pick<AppDeps, 'applePushes'>;
}

/**
 * Registers `suite` once per backend: an in-memory SQLite store, and a fresh PostgreSQL database
 * (each test skipped loudly when no server answers, a failure under REQUIRE_SERVICES=1).
 */
export async function eachBackend(
  title: string,
  suite: (run: BackendRun) => void,
  options: BackendOptions = {},
): Promise<void> {
  const pg = await postgresAvailability(`${title} on PostgreSQL`);
  const backends: { backend: string; skip: string | undefined; open: () => Promise<Opened> }[] = [
    { backend: 'SQLite', skip: undefined, open: async () => ({ store: new SqliteStore(':memory:') }) },
    {
      backend: 'PostgreSQL',
      skip: pg.skip,
      open: async () => {
        if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
        const database = await freshDatabase();
        return { store: await PostgresStore.open(database.url), drop: database.drop };
      },
    },
  ];
  for (const { backend, skip, open } of backends) {
    describe(`${title} (${backend})`, () => {
      let issuer: TestIssuer | undefined;
      let drop: (() => Promise<void>) | undefined;
      before(async () => {
        if (skip !== undefined) return;
        const opened = await open();
        drop = opened.drop;
        issuer = await testIssuer({
          store: options.wrapStore?.(opened.store) ?? opened.store,
          env: options.env,
          ...(options.deps ? { deps: options.deps() } : {}),
        });
      });
      after(async () => {
        await issuer?.close();
        await drop?.();
      });
      suite({ backend, skip, it: itUnless(skip), issuer: () => issuer ?? assert.fail('the issuer is not open') });
    });
  }
}

interface Opened {
  store: Store;
  drop?: () => Promise<void>;
}
