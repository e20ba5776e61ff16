import type pg from 'pg';
import { pendingAudit } from '../audit-context.ts';
import { isStoreUnavailable } from '../unavailable.ts';
import { auditedWork } from './audit.ts';

/**
 * Runs `work` between BEGIN and COMMIT on one client of the pool; rolls back (or drops a broken
 * client) on failure. While an admin write's audit entry is pending, the transaction inserts it if
 * it changed rows (see `audit.ts`).
 */
export async function transaction<T>(pool: pg.Pool, work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await auditedWork(client, work);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that is gone or silent would only make the rollback wait too: it is destroyed
    // instead, and the server rolls the transaction back when it sees it closed.
    if (isStoreUnavailable(error)) broken = error as Error;
    else {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
    }
    throw error;
  } finally {
    // A client whose rollback failed is in an unknown state: destroy it rather than reuse it.
    client.release(broken);
  }
}

const READ = /^\s*SELECT\b/i;

/**
 * The pool the store queries through. A statement that may write, sent while an admin write's entry
 * is pending, runs in a transaction of its own that records the entry if it changed rows: alone on
 * the pool, a statement is its own transaction, with no room for the entry. Everything else is the
 * pool's own.
 */
export function auditedPool(pool: pg.Pool): pg.Pool {
  const plain = pool.query.bind(pool) as (text: unknown, values?: unknown) => Promise<pg.QueryResult>;
  const query = (text: unknown, values?: unknown) =>
    pendingAudit() !== null && typeof text === 'string' && !READ.test(text)
      ? transaction(pool, (client) => client.query(text, values as unknown[]))
      : plain(text, values);
  const bound = new Map<PropertyKey, unknown>([['query', query]]);
  return new Proxy(pool, {
    get(target, property) {
      if (bound.has(property)) return bound.get(property);
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value.bind(target);
      bound.set(property, method);
      return method;
    },
  });
}
