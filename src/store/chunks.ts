/**
 * Bulk writes in parts. An admin write of many rows (10,000 tickets in one request, or a CSV import's
 * request) goes in statements of at most ROWS_PER_STATEMENT rows inside its one transaction: no single
 * statement comes near the store's time bound on a busy database (on PostgreSQL every statement is cut
 * at a quarter of REQUEST_TIMEOUT_S), and the whole stays all or none.
 */

/** The most rows one statement of a bulk write carries. */
export const ROWS_PER_STATEMENT = 1000;

/** The items in order, in parts of at most `size`. */
export function inChunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}
