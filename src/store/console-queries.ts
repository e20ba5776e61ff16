import { TICKET_COLUMNS_SQL } from './rows.ts';
import { searchKey } from './search-key.ts';

/**
 * SQL of the organizer console's store methods (sessions, ticket search), shared by every backend
 * with `?` placeholders; PostgreSQL numbers them.
 */

export const INSERT_ADMIN_SESSION_SQL = `INSERT INTO admin_sessions
  (session_hash, admin_token_tag, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`;
/** Housekeeping on each sign-in keeps the table to the sessions of the last absolute lifetime. */
export const PURGE_ADMIN_SESSIONS_SQL = 'DELETE FROM admin_sessions WHERE expires_at <= ?';
export const GET_ADMIN_SESSION_SQL = 'SELECT * FROM admin_sessions WHERE session_hash = ?';
export const TOUCH_ADMIN_SESSION_SQL =
  'UPDATE admin_sessions SET last_seen_at = ? WHERE session_hash = ? AND last_seen_at < ?';
export const DELETE_ADMIN_SESSION_SQL = 'DELETE FROM admin_sessions WHERE session_hash = ?';

/**
 * Ticket search (params: eid, after, holder pattern, tid pattern, limit + 1): the holder's
 * `search_name` (see `searchKey`) contains the query's key, or the tid starts with the query. The
 * index `(eid, tid, search_name)` holds both columns the filter reads, in the order of the answer.
 */
export const SEARCH_TICKETS_SQL = `
  SELECT ${TICKET_COLUMNS_SQL} FROM tickets
  WHERE eid = ? AND tid > ? AND (search_name LIKE ? ESCAPE '\\' OR tid LIKE ? ESCAPE '\\')
  ORDER BY tid LIMIT ?`;

/** Makes `%`, `_` and `\` match themselves in a LIKE pattern. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

/**
 * The LIKE patterns of a search: a search_name containing the query's key (punctuation, case and
 * accents ignored; a query of punctuation alone matches every name, as a blank one lists every
 * ticket), a tid starting with the query.
 */
export function searchPatterns(query: string): { holder: string; tid: string } {
  return { holder: `%${likeLiteral(searchKey(query))}%`, tid: `${likeLiteral(query.toUpperCase())}%` };
}
