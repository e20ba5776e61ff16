import type { Role } from '../domain/roles.ts';
import type { ApiTokenRecord, UserChange, UserRecord } from './people-store.ts';
import type { AdminSessionRecord } from './records.ts';
import type { Row } from './rows.ts';

/**
 * SQL of the people store, shared by every backend with `?` placeholders (PostgreSQL numbers them),
 * and the conversions of its rows.
 */

const USER_FIELDS = [
  'user_id',
  'email',
  'name',
  'role',
  'events',
  'disabled_at',
  'password_hash',
  'created_at',
  'updated_at',
] as const;
const TOKEN_FIELDS = ['token_id', 'token_hash', 'user_id', 'name', 'created_at', 'expires_at', 'last_used_at'] as const;
const SESSION_FIELDS = [
  'session_hash',
  'admin_token_tag',
  'user_id',
  'created_at',
  'last_seen_at',
  'expires_at',
] as const;

/** The columns of `alias`, each renamed `<prefix><column>`, for joins whose tables share column names. */
const prefixed = (fields: readonly string[], alias: string, prefix: string) =>
  fields.map((f) => `${alias}.${f} AS ${prefix}${f}`).join(', ');

export const INSERT_USER_SQL = `INSERT INTO users (${USER_FIELDS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (email) DO NOTHING`;
export const GET_USER_SQL = 'SELECT * FROM users WHERE user_id = ?';
export const GET_USER_BY_EMAIL_SQL = 'SELECT * FROM users WHERE email = ?';
export const LIST_USERS_SQL = 'SELECT * FROM users WHERE user_id > ? ORDER BY user_id LIMIT ?';
export const DELETE_USER_SQL = 'DELETE FROM users WHERE user_id = ?';
export const DELETE_SESSIONS_OF_SQL = 'DELETE FROM admin_sessions WHERE user_id = ?';
export const DELETE_INVITES_OF_SQL = 'DELETE FROM user_invites WHERE user_id = ?';
export const DELETE_TOKENS_OF_SQL = 'DELETE FROM api_tokens WHERE user_id = ?';

export const INSERT_INVITE_SQL = `INSERT INTO user_invites (invite_hash, user_id, created_at, expires_at, used_at)
  SELECT ?, user_id, ?, ?, NULL FROM users WHERE user_id = ?`;
/**
 * Takes an invitation of a person not disabled, once: the row lock (PostgreSQL) or the one writer
 * (SQLite) lets one taker through.
 */
export const TAKE_INVITE_SQL = `UPDATE user_invites SET used_at = ?
  WHERE invite_hash = ? AND used_at IS NULL AND expires_at > ?
    AND user_id IN (SELECT user_id FROM users WHERE disabled_at IS NULL)
  RETURNING user_id`;
/** Whether an invitation may be taken now (params: invite_hash, at): the read before any hash. */
export const OPEN_INVITE_SQL = `SELECT 1 AS open FROM user_invites
  WHERE invite_hash = ? AND used_at IS NULL AND expires_at > ?
    AND user_id IN (SELECT user_id FROM users WHERE disabled_at IS NULL)`;
/**
 * The people in a range of user_ids with an invitation neither used nor expired (the caller keeps those
 * it asked for): plain placeholders on both backends, and the index on `user_invites.user_id`.
 */
export const OPEN_INVITES_SQL = `SELECT DISTINCT user_id FROM user_invites
  WHERE user_id >= ? AND user_id <= ? AND used_at IS NULL AND expires_at > ?`;
export const SET_PASSWORD_SQL = `UPDATE users SET password_hash = ?, updated_at = ?
  WHERE user_id = ? AND disabled_at IS NULL RETURNING *`;

export const INSERT_FAILURE_SQL = 'INSERT INTO sign_in_failures (email, at) VALUES (?, ?)';
/** The table holds only the failures of the last window: every failure's write trims it. */
export const FORGET_FAILURES_SQL = 'DELETE FROM sign_in_failures WHERE at < ?';
export const FAILURES_SINCE_SQL = 'SELECT at FROM sign_in_failures WHERE email = ? AND at >= ? ORDER BY at';
export const CLEAR_FAILURES_SQL = 'DELETE FROM sign_in_failures WHERE email = ?';

export const INSERT_TOKEN_SQL = `INSERT INTO api_tokens (${TOKEN_FIELDS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?)`;
/** A token and its person in one query: a disabled or deleted person's token is refused on its next request. */
export const FIND_TOKEN_SQL = `SELECT ${prefixed(TOKEN_FIELDS, 't', 't_')}, ${prefixed(USER_FIELDS, 'u', 'u_')}
  FROM api_tokens t JOIN users u ON u.user_id = t.user_id WHERE t.token_hash = ?`;
export const TOUCH_TOKEN_SQL = `UPDATE api_tokens SET last_used_at = ?
  WHERE token_id = ? AND (last_used_at IS NULL OR last_used_at < ?)`;
export const LIST_TOKENS_SQL = 'SELECT * FROM api_tokens WHERE token_id > ? ORDER BY token_id LIMIT ?';
export const LIST_TOKENS_OF_SQL =
  'SELECT * FROM api_tokens WHERE user_id = ? AND token_id > ? ORDER BY token_id LIMIT ?';
export const DELETE_TOKEN_SQL = 'DELETE FROM api_tokens WHERE token_id = ?';
export const DELETE_TOKEN_OF_SQL = 'DELETE FROM api_tokens WHERE token_id = ? AND user_id = ?';

/** The person linked to a provider's (issuer, subject). */
export const FIND_SSO_USER_SQL = `SELECT u.* FROM sso_links l JOIN users u ON u.user_id = l.user_id
  WHERE l.issuer = ? AND l.subject = ?`;
/** Whether a person is linked to some subject of an issuer. */
export const SSO_LINK_OF_SQL = 'SELECT subject FROM sso_links WHERE user_id = ? AND issuer = ?';
/** Links a person; a link made meanwhile of the subject, or of the person at the issuer, wins. */
export const INSERT_SSO_LINK_SQL = `INSERT INTO sso_links (issuer, subject, user_id, created_at) VALUES (?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;
export const DELETE_SSO_LINKS_OF_SQL = 'DELETE FROM sso_links WHERE user_id = ?';

/** A console session and its person in one query (none for a session of the admin token). */
export const GET_SESSION_SQL = `SELECT ${prefixed(SESSION_FIELDS, 's', 's_')}, ${prefixed(USER_FIELDS, 'u', 'u_')}
  FROM admin_sessions s LEFT JOIN users u ON u.user_id = s.user_id WHERE s.session_hash = ?`;

/** The fields of `row` named `<prefix><field>`, without the prefix. */
function unprefixed(row: Row, fields: readonly string[], prefix: string): Row {
  return Object.fromEntries(fields.map((f) => [f, row[`${prefix}${f}`] ?? null]));
}

/** A person's row: `events` is kept as JSON text (null: every event). */
export function toUser(row: Row, prefix = ''): UserRecord {
  const user = unprefixed(row, USER_FIELDS, prefix) as unknown as Omit<UserRecord, 'events'> & { events: unknown };
  const events = typeof user.events === 'string' ? (JSON.parse(user.events) as string[]) : null;
  return { ...user, role: user.role as Role, events };
}

export const toApiToken = (row: Row, prefix = ''): ApiTokenRecord =>
  unprefixed(row, TOKEN_FIELDS, prefix) as unknown as ApiTokenRecord;

export const toSession = (row: Row, prefix = ''): AdminSessionRecord =>
  unprefixed(row, SESSION_FIELDS, prefix) as unknown as AdminSessionRecord;

/** The parameters of OPEN_INVITES_SQL covering `userIds` (null for none). */
export function openInvitesRange(userIds: string[], at: string): [string, string, string] | null {
  if (userIds.length === 0) return null;
  const sorted = [...userIds].sort();
  return [sorted[0]!, sorted[sorted.length - 1]!, at];
}

/** The answer of OPEN_INVITES_SQL, kept to the people asked about. */
export const openAmong = (rows: { user_id: string }[], userIds: string[]): Set<string> => {
  const asked = new Set(userIds);
  return new Set(rows.map((r) => r.user_id).filter((id) => asked.has(id)));
};

/** The parameters of INSERT_USER_SQL. */
export const userValues = (u: UserRecord): unknown[] => [
  u.user_id,
  u.email,
  u.name,
  u.role,
  u.events === null ? null : JSON.stringify(u.events),
  u.disabled_at,
  u.password_hash,
  u.created_at,
  u.updated_at,
];

export const tokenValues = (t: ApiTokenRecord): unknown[] => TOKEN_FIELDS.map((f) => t[f]);

/**
 * The UPDATE of a change (only the fields it names; `updated_at` always) and its parameters. Disabling
 * keeps the first instant; enabling clears it.
 */
export function updateUserStatement(
  userId: string,
  change: UserChange,
  at: string,
): { sql: string; values: unknown[] } {
  const sets: string[] = ['updated_at = ?'];
  const values: unknown[] = [at];
  const set = (assignment: string, ...params: unknown[]) => {
    sets.push(assignment);
    values.push(...params);
  };
  if (change.name !== undefined) set('name = ?', change.name);
  if (change.role !== undefined) set('role = ?', change.role);
  if (change.events !== undefined) set('events = ?', change.events === null ? null : JSON.stringify(change.events));
  if (change.disabled === true) set('disabled_at = COALESCE(disabled_at, ?)', at);
  if (change.disabled === false) set('disabled_at = NULL');
  return { sql: `UPDATE users SET ${sets.join(', ')} WHERE user_id = ? RETURNING *`, values: [...values, userId] };
}
