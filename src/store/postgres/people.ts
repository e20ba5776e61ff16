import { noteAuditActor } from '../audit-context.ts';
import type pg from 'pg';
import type {
  ApiTokenRecord,
  ApiTokenWithUser,
  InviteRecord,
  PeopleStore,
  SessionWithUser,
  SsoLinkRecord,
  UserChange,
  UserRecord,
} from '../people-store.ts';
import * as q from '../people-queries.ts';
import type { Page } from '../records.ts';
import { page, type Row } from '../rows.ts';
import { all, numbered, one, type Tx } from './queries.ts';

/** The first key of the per-address advisory lock of sign-in attempts (the second: the address's hashtext). */
const LOCK_SIGN_IN_ATTEMPTS = 0x54490005;

/** Rolls an invitation's transaction back when its person was disabled while it waited. */
class DisabledMeanwhile extends Error {}

/**
 * The people store on PostgreSQL. Reads run on the pool (one statement, one snapshot); every change of
 * people, invitations and tokens runs in a transaction (`tx`), so that whatever a transaction records
 * beside it commits with it. Races between instances are settled by row locks.
 */
export class PostgresPeopleStore implements PeopleStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly tx: Tx,
  ) {}

  private count(db: pg.PoolClient | pg.Pool, sql: string, values: unknown[]): Promise<number> {
    return db.query(numbered(sql), values).then((r) => r.rowCount ?? 0);
  }

  createUser(user: UserRecord): Promise<'created' | 'email_taken'> {
    return this.tx(async (db) =>
      (await this.count(db, q.INSERT_USER_SQL, q.userValues(user))) > 0 ? 'created' : 'email_taken',
    );
  }

  async getUser(userId: string): Promise<UserRecord | null> {
    const row = await one<Row>(this.pool, numbered(q.GET_USER_SQL), [userId]);
    return row ? q.toUser(row) : null;
  }

  async getUserByEmail(email: string): Promise<UserRecord | null> {
    const row = await one<Row>(this.pool, numbered(q.GET_USER_BY_EMAIL_SQL), [email]);
    return row ? q.toUser(row) : null;
  }

  async listUsers(limit: number, after: string | null): Promise<Page<UserRecord>> {
    const rows = await all<Row>(this.pool, numbered(q.LIST_USERS_SQL), [after ?? '', limit + 1]);
    return page(
      rows.map((r) => q.toUser(r)),
      limit,
      (u) => u.user_id,
    );
  }

  updateUser(userId: string, change: UserChange, at: string): Promise<UserRecord | null> {
    const { sql, values } = q.updateUserStatement(userId, change, at);
    return this.tx(async (db) => {
      const row = await one<Row>(db, numbered(sql), values);
      if (!row) return null;
      const user = q.toUser(row);
      if (user.disabled_at !== null) {
        await this.count(db, q.DELETE_SESSIONS_OF_SQL, [userId]);
        await this.count(db, q.DELETE_TOKENS_OF_SQL, [userId]);
      }
      if (change.disabled === true) await this.count(db, q.DELETE_INVITES_OF_SQL, [userId]);
      return user;
    });
  }

  deleteUser(userId: string): Promise<boolean> {
    return this.tx(async (db) => {
      // The person's row first: a sign-in or an invitation racing with the deletion waits on its lock.
      const deleted = (await this.count(db, q.DELETE_USER_SQL, [userId])) > 0;
      await this.count(db, q.DELETE_SESSIONS_OF_SQL, [userId]);
      await this.count(db, q.DELETE_INVITES_OF_SQL, [userId]);
      await this.count(db, q.DELETE_TOKENS_OF_SQL, [userId]);
      await this.count(db, q.DELETE_SSO_LINKS_OF_SQL, [userId]);
      return deleted;
    });
  }

  createInvite(invite: InviteRecord): Promise<boolean> {
    return this.tx(async (db) => {
      // Locks the person: two invitations made at once end one after the other, leaving the last one.
      const person = await one(db, `${numbered(q.GET_USER_SQL)} FOR UPDATE`, [invite.user_id]);
      if (person === null) return false;
      await this.count(db, q.DELETE_INVITES_OF_SQL, [invite.user_id]);
      const { invite_hash, created_at, expires_at, user_id } = invite;
      return (await this.count(db, q.INSERT_INVITE_SQL, [invite_hash, created_at, expires_at, user_id])) > 0;
    });
  }

  async inviteOpen(inviteHash: string, at: string): Promise<boolean> {
    return (await one(this.pool, numbered(q.OPEN_INVITE_SQL), [inviteHash, at])) !== null;
  }

  async acceptInvite(inviteHash: string, passwordHash: string, at: string): Promise<UserRecord | null> {
    try {
      return await this.tx(async (db) => {
        const taken = await one<{ user_id: string }>(db, numbered(q.TAKE_INVITE_SQL), [at, inviteHash, at]);
        if (!taken) return null;
        const row = await one<Row>(db, numbered(q.SET_PASSWORD_SQL), [passwordHash, at, taken.user_id]);
        if (!row) throw new DisabledMeanwhile();
        await this.count(db, q.DELETE_SESSIONS_OF_SQL, [taken.user_id]);
        await this.count(db, q.DELETE_TOKENS_OF_SQL, [taken.user_id]);
        const user = q.toUser(row);
        noteAuditActor(user);
        return user;
      });
    } catch (error) {
      if (error instanceof DisabledMeanwhile) return null;
      throw error;
    }
  }

  async openInvitations(userIds: string[], at: string): Promise<Set<string>> {
    const range = q.openInvitesRange(userIds, at);
    if (range === null) return new Set();
    return q.openAmong(await all<{ user_id: string }>(this.pool, numbered(q.OPEN_INVITES_SQL), range), userIds);
  }

  async getUserBySsoSubject(issuer: string, subject: string): Promise<UserRecord | null> {
    const row = await one<Row>(this.pool, numbered(q.FIND_SSO_USER_SQL), [issuer, subject]);
    return row ? q.toUser(row) : null;
  }

  linkSsoSubject(link: SsoLinkRecord, email: string): Promise<UserRecord | 'unknown' | 'linked'> {
    const linkedTo = async (db: pg.PoolClient) => {
      const row = await one<Row>(db, numbered(q.FIND_SSO_USER_SQL), [link.issuer, link.subject]);
      return row ? q.toUser(row) : null;
    };
    return this.tx(async (db) => {
      // Locks the person first: first sign-ins with one address link one after the other, and each
      // reads the links committed before it took the lock.
      const row = await one<Row>(db, `${numbered(q.GET_USER_BY_EMAIL_SQL)} FOR UPDATE`, [email]);
      const linked = await linkedTo(db);
      if (linked) return linked;
      if (!row) return 'unknown';
      const user = q.toUser(row);
      if (await one(db, numbered(q.SSO_LINK_OF_SQL), [user.user_id, link.issuer])) return 'linked';
      if (user.disabled_at !== null) return user;
      const values = [link.issuer, link.subject, user.user_id, link.created_at];
      if ((await this.count(db, q.INSERT_SSO_LINK_SQL, values)) > 0) return user;
      // The subject was linked by a sign-in that committed meanwhile: its person is the one.
      return (await linkedTo(db)) ?? 'linked';
    });
  }

  recordSignInAttempt(
    email: string,
    at: string,
    since: string,
    held: (earlier: string[]) => boolean,
  ): Promise<boolean> {
    return this.tx(async (db) => {
      // Attempts on one address, on any instance, one after the other: each reads those before it.
      await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SIGN_IN_ATTEMPTS, email]);
      await this.count(db, q.FORGET_FAILURES_SQL, [since]);
      const earlier = (await all<{ at: string }>(db, numbered(q.FAILURES_SINCE_SQL), [email, since])).map((r) => r.at);
      if (held(earlier)) return false;
      await this.count(db, q.INSERT_FAILURE_SQL, [email, at]);
      return true;
    });
  }

  async clearSignInFailures(email: string): Promise<void> {
    await this.count(this.pool, q.CLEAR_FAILURES_SQL, [email]);
  }

  async createApiToken(token: ApiTokenRecord): Promise<void> {
    await this.tx((db) => this.count(db, q.INSERT_TOKEN_SQL, q.tokenValues(token)));
  }

  async findApiToken(tokenHash: string): Promise<ApiTokenWithUser | null> {
    const row = await one<Row>(this.pool, numbered(q.FIND_TOKEN_SQL), [tokenHash]);
    return row ? { token: q.toApiToken(row, 't_'), user: q.toUser(row, 'u_') } : null;
  }

  async touchApiToken(tokenId: string, at: string): Promise<void> {
    await this.count(this.pool, q.TOUCH_TOKEN_SQL, [at, tokenId, at]);
  }

  async listApiTokens(userId: string | null, limit: number, after: string | null): Promise<Page<ApiTokenRecord>> {
    const rows =
      userId === null
        ? await all<Row>(this.pool, numbered(q.LIST_TOKENS_SQL), [after ?? '', limit + 1])
        : await all<Row>(this.pool, numbered(q.LIST_TOKENS_OF_SQL), [userId, after ?? '', limit + 1]);
    return page(
      rows.map((r) => q.toApiToken(r)),
      limit,
      (t) => t.token_id,
    );
  }

  deleteApiToken(tokenId: string, userId: string | null): Promise<boolean> {
    return this.tx(
      async (db) =>
        (userId === null
          ? await this.count(db, q.DELETE_TOKEN_SQL, [tokenId])
          : await this.count(db, q.DELETE_TOKEN_OF_SQL, [tokenId, userId])) > 0,
    );
  }

  async getSession(sessionHash: string): Promise<SessionWithUser | null> {
    const row = await one<Row>(this.pool, numbered(q.GET_SESSION_SQL), [sessionHash]);
    if (!row) return null;
    return { session: q.toSession(row, 's_'), user: row.u_user_id == null ? null : q.toUser(row, 'u_') };
  }

  endSessionsOf(userId: string): Promise<number> {
    return this.tx((db) => this.count(db, q.DELETE_SESSIONS_OF_SQL, [userId]));
  }
}
