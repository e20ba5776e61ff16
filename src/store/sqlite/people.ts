import { noteAuditActor } from '../audit-context.ts';
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
import type { SqliteContext } from './context.ts';

/** The people store on SQLite: one writer at a time, so each method's transaction needs no lock. */
export class SqlitePeopleStore implements PeopleStore {
  constructor(private readonly c: SqliteContext) {}

  createUser(user: UserRecord): Promise<'created' | 'email_taken'> {
    return this.c.tx(() => (this.c.run(q.INSERT_USER_SQL, ...q.userValues(user)) > 0 ? 'created' : 'email_taken'));
  }

  async getUser(userId: string): Promise<UserRecord | null> {
    const row = this.c.one<Row>(q.GET_USER_SQL, userId);
    return row ? q.toUser(row) : null;
  }

  async getUserByEmail(email: string): Promise<UserRecord | null> {
    const row = this.c.one<Row>(q.GET_USER_BY_EMAIL_SQL, email);
    return row ? q.toUser(row) : null;
  }

  async listUsers(limit: number, after: string | null): Promise<Page<UserRecord>> {
    const rows = this.c.all<Row>(q.LIST_USERS_SQL, after ?? '', limit + 1).map((r) => q.toUser(r));
    return page(rows, limit, (u) => u.user_id);
  }

  updateUser(userId: string, change: UserChange, at: string): Promise<UserRecord | null> {
    const { sql, values } = q.updateUserStatement(userId, change, at);
    return this.c.tx(() => {
      const row = this.c.one<Row>(sql, ...values);
      if (!row) return null;
      const user = q.toUser(row);
      if (user.disabled_at !== null) {
        this.c.run(q.DELETE_SESSIONS_OF_SQL, userId);
        this.c.run(q.DELETE_TOKENS_OF_SQL, userId);
      }
      if (change.disabled === true) this.c.run(q.DELETE_INVITES_OF_SQL, userId);
      return user;
    });
  }

  deleteUser(userId: string): Promise<boolean> {
    return this.c.tx(() => {
      this.c.run(q.DELETE_SESSIONS_OF_SQL, userId);
      this.c.run(q.DELETE_INVITES_OF_SQL, userId);
      this.c.run(q.DELETE_TOKENS_OF_SQL, userId);
      this.c.run(q.DELETE_SSO_LINKS_OF_SQL, userId);
      return this.c.run(q.DELETE_USER_SQL, userId) > 0;
    });
  }

  createInvite(invite: InviteRecord): Promise<boolean> {
    return this.c.tx(() => {
      if (this.c.one(q.GET_USER_SQL, invite.user_id) === null) return false;
      this.c.run(q.DELETE_INVITES_OF_SQL, invite.user_id);
      const { invite_hash, created_at, expires_at, user_id } = invite;
      return this.c.run(q.INSERT_INVITE_SQL, invite_hash, created_at, expires_at, user_id) > 0;
    });
  }

  async inviteOpen(inviteHash: string, at: string): Promise<boolean> {
    return this.c.one(q.OPEN_INVITE_SQL, inviteHash, at) !== null;
  }

  acceptInvite(inviteHash: string, passwordHash: string, at: string): Promise<UserRecord | null> {
    return this.c.tx(() => {
      const taken = this.c.one<{ user_id: string }>(q.TAKE_INVITE_SQL, at, inviteHash, at);
      if (!taken) return null;
      // The one writer: the person taken above is still there and not disabled.
      const row = this.c.one<Row>(q.SET_PASSWORD_SQL, passwordHash, at, taken.user_id)!;
      this.c.run(q.DELETE_SESSIONS_OF_SQL, taken.user_id);
      this.c.run(q.DELETE_TOKENS_OF_SQL, taken.user_id);
      const user = q.toUser(row);
      noteAuditActor(user);
      return user;
    });
  }

  async openInvitations(userIds: string[], at: string): Promise<Set<string>> {
    const range = q.openInvitesRange(userIds, at);
    if (range === null) return new Set();
    return q.openAmong(this.c.all<{ user_id: string }>(q.OPEN_INVITES_SQL, ...range), userIds);
  }

  async getUserBySsoSubject(issuer: string, subject: string): Promise<UserRecord | null> {
    const row = this.c.one<Row>(q.FIND_SSO_USER_SQL, issuer, subject);
    return row ? q.toUser(row) : null;
  }

  linkSsoSubject(link: SsoLinkRecord, email: string): Promise<UserRecord | 'unknown' | 'linked'> {
    // One IMMEDIATE transaction: the one writer orders first sign-ins, across processes too.
    return this.c.tx(() => {
      const linked = this.c.one<Row>(q.FIND_SSO_USER_SQL, link.issuer, link.subject);
      if (linked) return q.toUser(linked);
      const row = this.c.one<Row>(q.GET_USER_BY_EMAIL_SQL, email);
      if (!row) return 'unknown';
      const user = q.toUser(row);
      if (this.c.one(q.SSO_LINK_OF_SQL, user.user_id, link.issuer)) return 'linked';
      if (user.disabled_at !== null) return user;
      this.c.run(q.INSERT_SSO_LINK_SQL, link.issuer, link.subject, user.user_id, link.created_at);
      return user;
    });
  }

  recordSignInAttempt(
    email: string,
    at: string,
    since: string,
    held: (earlier: string[]) => boolean,
  ): Promise<boolean> {
    // One IMMEDIATE transaction: the one writer serializes attempts, across processes too.
    return this.c.tx(() => {
      this.c.run(q.FORGET_FAILURES_SQL, since);
      const earlier = this.c.all<{ at: string }>(q.FAILURES_SINCE_SQL, email, since).map((r) => r.at);
      if (held(earlier)) return false;
      this.c.run(q.INSERT_FAILURE_SQL, email, at);
      return true;
    });
  }

  clearSignInFailures(email: string): Promise<void> {
    return this.c.tx(() => {
      this.c.run(q.CLEAR_FAILURES_SQL, email);
    });
  }

  createApiToken(token: ApiTokenRecord): Promise<void> {
    return this.c.tx(() => {
      this.c.run(q.INSERT_TOKEN_SQL, ...q.tokenValues(token));
    });
  }

  async findApiToken(tokenHash: string): Promise<ApiTokenWithUser | null> {
    const row = this.c.one<Row>(q.FIND_TOKEN_SQL, tokenHash);
    return row ? { token: q.toApiToken(row, 't_'), user: q.toUser(row, 'u_') } : null;
  }

  touchApiToken(tokenId: string, at: string): Promise<void> {
    return this.c.tx(() => {
      this.c.run(q.TOUCH_TOKEN_SQL, at, tokenId, at);
    });
  }

  async listApiTokens(userId: string | null, limit: number, after: string | null): Promise<Page<ApiTokenRecord>> {
    const rows =
      userId === null
        ? this.c.all<Row>(q.LIST_TOKENS_SQL, after ?? '', limit + 1)
        : this.c.all<Row>(q.LIST_TOKENS_OF_SQL, userId, after ?? '', limit + 1);
    return page(
      rows.map((r) => q.toApiToken(r)),
      limit,
      (t) => t.token_id,
    );
  }

  deleteApiToken(tokenId: string, userId: string | null): Promise<boolean> {
    return this.c.tx(
      () =>
        (userId === null
          ? this.c.run(q.DELETE_TOKEN_SQL, tokenId)
          : this.c.run(q.DELETE_TOKEN_OF_SQL, tokenId, userId)) > 0,
    );
  }

  async getSession(sessionHash: string): Promise<SessionWithUser | null> {
    const row = this.c.one<Row>(q.GET_SESSION_SQL, sessionHash);
    if (!row) return null;
    return { session: q.toSession(row, 's_'), user: row.u_user_id == null ? null : q.toUser(row, 'u_') };
  }

  endSessionsOf(userId: string): Promise<number> {
    return this.c.tx(() => this.c.run(q.DELETE_SESSIONS_OF_SQL, userId));
  }
}
