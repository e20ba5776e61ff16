import type { AdminSessionRecord } from './records.ts';

/** Console sessions. Every method is one transaction; each says what it guarantees. */
export interface SessionStore {
  /** Inserts a console session; sessions whose absolute end has passed by its creation are deleted. */
  createAdminSession(session: AdminSessionRecord): Promise<void>;
  /** The session with this hash, or null. */
  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null>;
  /** Records that the session was used at `at` (only moves last_seen_at forward). */
  touchAdminSession(sessionHash: string, at: string): Promise<void>;
  /** Deletes the session; false when there was none. */
  deleteAdminSession(sessionHash: string): Promise<boolean>;
}
