import type pg from 'pg';

/** node-postgres, loaded when a PostgreSQL store opens (an issuer on SQLite never needs it). */
const driver = async (): Promise<typeof pg> => (await import('pg')).default;

/** How long the store waits on PostgreSQL before it says it is unavailable. */
export interface PoolTimeouts {
  /** For a connection (new, or a free one of the pool) and for each statement's answer. */
  timeoutMs: number;
}

/** The default when the caller names none: a quarter of the default REQUEST_TIMEOUT_S. */
export const DEFAULT_POOL_TIMEOUTS: PoolTimeouts = { timeoutMs: 3_750 };

/**
 * A pool that never hangs a request and never crashes the process on a lost server: connecting and
 * every statement are bounded (a cut or silent network answers within the bound; a transaction that
 * meets it destroys its connection rather than wait for a rollback), TCP keep-alive notices a dead
 * peer, and every client carries
 * an error listener for its whole life (node-postgres emits `error` on a checked-out client whose
 * connection dies between statements; unheard, that event would end the process). The broken client
 * is then discarded by the pool, and the next statement reports the failure to its caller.
 */
export async function boundedPool(
  url: string,
  timeouts: PoolTimeouts,
  options: Pick<pg.PoolConfig, 'max' | 'pipeline'> = {},
): Promise<pg.Pool> {
  const pool = new (await driver()).Pool({
    ...options,
    connectionString: url,
    application_name: 'ticket-issuer',
    connectionTimeoutMillis: timeouts.timeoutMs,
    // The server cancels a statement that runs past the bound (so a statement the client gave up on
    // does not commit later); the client's own bound, a little longer, covers a silent network.
    statement_timeout: timeouts.timeoutMs,
    query_timeout: timeouts.timeoutMs + 500,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** How long one migration statement may take at start-up. */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

/** A pool with a generous statement bound, for work that may rightly take long (migrations at start-up). */
export async function migrationPool(url: string, timeouts: PoolTimeouts): Promise<pg.Pool> {
  const pool = new (await driver()).Pool({
    connectionString: url,
    application_name: 'ticket-issuer',
    connectionTimeoutMillis: timeouts.timeoutMs,
    // Generous, but bounded: a server that accepts connections and then says nothing must not hang
    // the start for ever.
    query_timeout: MIGRATION_TIMEOUT_MS,
    max: 1,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
