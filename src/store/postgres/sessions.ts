import {
  DELETE_ADMIN_SESSION_SQL,
  GET_ADMIN_SESSION_SQL,
  INSERT_ADMIN_SESSION_SQL,
  PURGE_ADMIN_SESSIONS_SQL,
  TOUCH_ADMIN_SESSION_SQL,
} from '../console-queries.ts';
import type { AdminSessionRecord } from '../store.ts';
import { type Db, numbered, one, type Tx } from './queries.ts';

/** Inserts a console session, deleting those whose absolute end has passed. */
export function createAdminSession(tx: Tx, session: AdminSessionRecord): Promise<void> {
  return tx(async (db) => {
    await db.query(numbered(PURGE_ADMIN_SESSIONS_SQL), [session.created_at]);
    const { session_hash, admin_token_tag, user_id, created_at, last_seen_at, expires_at } = session;
    const values = [session_hash, admin_token_tag, user_id, created_at, last_seen_at, expires_at];
    await db.query(numbered(INSERT_ADMIN_SESSION_SQL), values);
  });
}

/** The session with this hash, or null. */
export function getAdminSession(db: Db, sessionHash: string): Promise<AdminSessionRecord | null> {
  return one<AdminSessionRecord>(db, numbered(GET_ADMIN_SESSION_SQL), [sessionHash]);
}

/** Records that the session was used at `at` (only moves last_seen_at forward). */
export async function touchAdminSession(db: Db, sessionHash: string, at: string): Promise<void> {
  await db.query(numbered(TOUCH_ADMIN_SESSION_SQL), [at, sessionHash, at]);
}

/** Deletes the session; false when there was none. */
export async function deleteAdminSession(db: Db, sessionHash: string): Promise<boolean> {
  return ((await db.query(numbered(DELETE_ADMIN_SESSION_SQL), [sessionHash])).rowCount ?? 0) > 0;
}
