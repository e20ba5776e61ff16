import type { AdminSessionRecord } from '../store.ts';
import {
  DELETE_ADMIN_SESSION_SQL,
  GET_ADMIN_SESSION_SQL,
  INSERT_ADMIN_SESSION_SQL,
  PURGE_ADMIN_SESSIONS_SQL,
  TOUCH_ADMIN_SESSION_SQL,
} from '../console-queries.ts';
import type { SqliteContext } from './context.ts';

export function createAdminSession(c: SqliteContext, session: AdminSessionRecord): Promise<void> {
  return c.tx(() => {
    c.run(PURGE_ADMIN_SESSIONS_SQL, session.created_at);
    const { session_hash, admin_token_tag, user_id, created_at, last_seen_at, expires_at } = session;
    c.run(INSERT_ADMIN_SESSION_SQL, session_hash, admin_token_tag, user_id, created_at, last_seen_at, expires_at);
  });
}

export async function getAdminSession(c: SqliteContext, sessionHash: string): Promise<AdminSessionRecord | null> {
  return c.one<AdminSessionRecord>(GET_ADMIN_SESSION_SQL, sessionHash);
}

export function touchAdminSession(c: SqliteContext, sessionHash: string, at: string): Promise<void> {
  return c.tx(() => {
    c.run(TOUCH_ADMIN_SESSION_SQL, at, sessionHash, at);
  });
}

export function deleteAdminSession(c: SqliteContext, sessionHash: string): Promise<boolean> {
  return c.tx(() => c.run(DELETE_ADMIN_SESSION_SQL, sessionHash) > 0);
}
