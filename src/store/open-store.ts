import { resolve } from 'node:path';
import { PostgresStore } from './postgres/postgres-store.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** The SQLite file a DATABASE_URL names (`sqlite:<path>` or a bare path), or null for PostgreSQL. */
export function sqlitePath(databaseUrl: string): string | null {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return null;
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  return path === ':memory:' ? path : resolve(path);
}

/**
 * Opens the store DATABASE_URL names, applying pending migrations. `requestTimeoutSeconds` bounds how
 * long a request may wait on PostgreSQL: a quarter of it per connection or statement (a request meets
 * at most three: its key, a wait behind a batch in flight, its own batch), so that a lost or silent
 * database is a 503 before the client's own timeout.
 */
export async function openStore(databaseUrl: string, requestTimeoutSeconds = 15): Promise<Store> {
  const path = sqlitePath(databaseUrl);
  const timeoutMs = Math.max(500, Math.floor((requestTimeoutSeconds * 1000) / 4));
  return path === null ? PostgresStore.open(databaseUrl, { timeoutMs }) : new SqliteStore(path);
}
