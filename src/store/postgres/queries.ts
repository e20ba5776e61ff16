import type pg from 'pg';
import type { Row } from '../rows.ts';

/** Anything that runs a query: the pool (one statement, one implicit transaction) or a client inside BEGIN. */
export interface Db {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>>;
}

/** Runs `work` between BEGIN and COMMIT on one client of the pool (see PostgresStore). */
export type Tx = <T>(work: (db: pg.PoolClient) => Promise<T>) => Promise<T>;

export async function all<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

export async function one<T>(db: Db, sql: string, params: unknown[] = []): Promise<T | null> {
  return (await all<T>(db, sql, params))[0] ?? null;
}

/** SQL shared with SQLite (`?` placeholders) in PostgreSQL's numbered form. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
