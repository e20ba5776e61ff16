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

/** Opens the store DATABASE_URL names, applying pending migrations. */
export async function openStore(databaseUrl: string): Promise<Store> {
  const path = sqlitePath(databaseUrl);
  return path === null ? PostgresStore.open(databaseUrl) : new SqliteStore(path);
}
