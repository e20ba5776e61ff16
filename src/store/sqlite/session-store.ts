import type { AdminSessionRecord } from '../store.ts';
import { SqliteContext } from './context.ts';
import { createAdminSession, deleteAdminSession, getAdminSession, touchAdminSession } from './sessions.ts';
import type { SessionStore } from '../session-store.ts';

/** Console sessions. (Sqlite: see ../session-store.ts.) */
export class SqliteSessionStore implements SessionStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return createAdminSession(this.b.ctx, session);
  }

  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return getAdminSession(this.b.ctx, sessionHash);
  }

  touchAdminSession(sessionHash: string, at: string): Promise<void> {
    return touchAdminSession(this.b.ctx, sessionHash, at);
  }

  deleteAdminSession(sessionHash: string): Promise<boolean> {
    return deleteAdminSession(this.b.ctx, sessionHash);
  }
}
