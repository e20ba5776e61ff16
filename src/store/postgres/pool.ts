import pg from 'pg';

/** How long the store waits on PostgreSQL before it says it is unavailable. */
export interface PoolTimeouts {
  /** For a connection (new, or a free one of the pool) and for each statement's answer. */
  timeoutMs: number;
}

/** The default when the caller names none: a third of the default REQUEST_TIMEOUT_S. */
export const DEFAULT_POOL_TIMEOUTS: PoolTimeouts = { timeoutMs: 5_000 };

/**
 * A pool that never hangs a request and never crashes the process on a lost server: connecting and
 * every statement are bounded (a cut or silent network answers within the bound, a transaction within
 * two: its statement and its rollback), TCP keep-alive notices a dead peer, and every client carries
 * an error listener for its whole life (node-postgres emits `error` on a checked-out client whose
 * connection dies between statements; unheard, that event would end the process). The broken client
 * is then discarded by the pool, and the next statement reports the failure to its caller.
 */
export function boundedPool(url: string, timeouts: PoolTimeouts): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    application_name: 'ticket-issuer',
    connectionTimeoutMillis: timeouts.timeoutMs,
    query_timeout: timeouts.timeoutMs,
    keepAlive: true,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A pool without statement bounds, for work that may rightly take long (migrations at start-up). */
export function unboundedPool(url: string, timeouts: PoolTimeouts): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    application_name: 'ticket-issuer',
    connectionTimeoutMillis: timeouts.timeoutMs,
    max: 1,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
