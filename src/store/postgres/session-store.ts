import type { AdminSessionRecord } from '../store.ts';
import type { Tx } from './queries.ts';
import * as sessions from './sessions.ts';
import type pg from 'pg';
import type { SessionStore } from '../session-store.ts';

/** Console sessions. (PostgreSQL: see ../session-store.ts.) */
export class PostgresSessionStore implements SessionStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return sessions.createAdminSession(this.b.tx, session);
  }

  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return sessions.getAdminSession(this.b.pool, sessionHash);
  }

  touchAdminSession(sessionHash: string, at: string): Promise<void> {
    return sessions.touchAdminSession(this.b.pool, sessionHash, at);
  }

  deleteAdminSession(sessionHash: string): Promise<boolean> {
    return sessions.deleteAdminSession(this.b.pool, sessionHash);
  }
}
