/**
 * Whether an error says the store cannot serve right now (the database is unreachable, restarting,
 * out of connections, or its disk is full or failing), as opposed to a fault of the request or of the
 * issuer. Such an error is answered 503 `UNAVAILABLE` with `Retry-After`, never 500: the client's
 * retry, under the same idempotency key, gets whatever the store did or did not commit.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    if (unavailableByItself(cause)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** PostgreSQL SQLSTATEs of an unusable server rather than a bad statement. */
const POSTGRES_STATES = new Set([
  '57P01', // admin_shutdown: the server is stopping or restarting
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '53000', // insufficient_resources
  '53100', // disk_full
  '53200', // out_of_memory
  '53300', // too_many_connections
  '58000', // system_error
  '58030', // io_error
  '25006', // read_only_sql_transaction: a standby after a failover
  '57014', // query_canceled: by the pool's statement_timeout, a database too slow to answer in time
]);

/** Node's codes for a network path or a disk that failed. */
const SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EROFS',
]);

/** SQLite's primary result codes of a full or failing disk, or a file it cannot use (better-sqlite3 names them). */
const SQLITE_CODES = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY|BUSY|LOCKED|PROTOCOL|NOMEM)/;

/** What node-postgres says, with no code, when the connection is gone or could not be made in time. */
const POSTGRES_CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
  'Cannot use a pool after calling end',
];

function unavailableByItself(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (POSTGRES_STATES.has(code) || code.startsWith('08') || SYSTEM_CODES.has(code) || SQLITE_CODES.test(code)) {
      return true;
    }
  }
  return POSTGRES_CLIENT_MESSAGES.some((message) => error.message.includes(message));
}

/** Seconds a client is asked to wait before retrying while the store is unavailable. */
export const STORE_RETRY_AFTER_SECONDS = 2;
