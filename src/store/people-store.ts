import type { Role } from '../domain/roles.ts';
import type { ApiTokenRecord, InviteRecord, SsoLinkRecord, UserRecord } from './people-records.ts';
import type { AdminSessionRecord, Page } from './records.ts';

export type * from './people-records.ts';

/** What a change of a person may touch; absent fields stay as they are. */
export interface UserChange {
  name?: string;
  role?: Role;
  events?: string[] | null;
  /** true: disabled from the change's instant (an already disabled person keeps the first instant). */
  disabled?: boolean;
}

/** A personal API token with its person, as the per-request lookup answers it (one query). */
export interface ApiTokenWithUser {
  token: ApiTokenRecord;
  user: UserRecord;
}

/** A console session with its person (null for a session opened with the admin token, or a person gone). */
export interface SessionWithUser {
  session: AdminSessionRecord;
  user: UserRecord | null;
}

/**
 * The people of the organization, their invitations, sign-in failures, personal API tokens and the
 * console sessions they open. Every method is one transaction. Instants are stored strings
 * (`domain/time.ts`). Secrets never reach it: invitations, tokens and sessions are kept as digests,
 * passwords as scrypt hashes.
 */
export interface PeopleStore {
  /** Inserts a person; `email_taken` (nothing stored) when another person has the address. */
  createUser(user: UserRecord): Promise<'created' | 'email_taken'>;
  /** The person, or null. */
  getUser(userId: string): Promise<UserRecord | null>;
  /** The person with this (normalized) address, or null. */
  getUserByEmail(email: string): Promise<UserRecord | null>;
  /** People in user_id order (time-ordered), a page at a time (cursor: the last user_id seen). */
  listUsers(limit: number, after: string | null): Promise<Page<UserRecord>>;
  /**
   * Changes a person at `at`; null when there is none. Disabling ends every console session of the
   * person and deletes their personal API tokens and invitations in the same transaction: enabling them
   * again brings none of them back.
   */
  updateUser(userId: string, change: UserChange, at: string): Promise<UserRecord | null>;
  /** Deletes a person with their console sessions, invitations, tokens and single sign-on links; false when there was none. */
  deleteUser(userId: string): Promise<boolean>;

  /** Stores an invitation and ends the person's earlier ones; false (nothing stored) when there is no such person. */
  createInvite(invite: InviteRecord): Promise<boolean>;
  /**
   * Whether an invitation is unused, not expired at `at`, and of a person not disabled: what
   * `acceptInvite` would take. Read before a password is hashed, so a made-up token costs no hash.
   */
  inviteOpen(inviteHash: string, at: string): Promise<boolean>;
  /**
   * Takes an unused invitation not expired at `at` and sets the person's password hash, atomically:
   * once only, whoever races for it. The person's console sessions end and their personal API tokens
   * are deleted (a new password ends what the old one opened). Null (nothing changes) for an unknown,
   * used or expired invitation, or a disabled person.
   */
  acceptInvite(inviteHash: string, passwordHash: string, at: string): Promise<UserRecord | null>;
  /** Those of `userIds` who hold an invitation neither used nor expired at `at` (one query). */
  openInvitations(userIds: string[], at: string): Promise<Set<string>>;

  /** The person linked to a single sign-on provider's (issuer, subject), or null. */
  getUserBySsoSubject(issuer: string, subject: string): Promise<UserRecord | null>;
  /**
   * A first single sign-on: links the person whose address is exactly `email` to the link's (issuer,
   * subject), in one transaction, and answers them. `unknown` when nobody has the address; `linked`
   * (nothing stored) when that person is already linked to another subject of the issuer. A disabled
   * person is answered unlinked. When the subject was linked meanwhile (two first sign-ins at once),
   * answers the person it is linked to: of racing links, one wins on every instance.
   */
  linkSsoSubject(link: SsoLinkRecord, email: string): Promise<UserRecord | 'unknown' | 'linked'>;

  /**
   * Records an attempt to sign in as an address as one of its failures, before its password is tried,
   * unless `held` says the address's earlier failures (from `since` on, oldest first) hold it: then
   * nothing is recorded and the answer is false. Reading and recording are one transaction serialized
   * per address on every instance, so attempts made at once each see the ones before them. Failures
   * before `since` (every address's) are forgotten.
   */
  recordSignInAttempt(email: string, at: string, since: string, held: (earlier: string[]) => boolean): Promise<boolean>;
  /** Forgets an address's failed sign-ins (after a successful one). */
  clearSignInFailures(email: string): Promise<void>;

  /** Inserts a personal API token (its digest only). */
  createApiToken(token: ApiTokenRecord): Promise<void>;
  /** The token with this digest and its person, in one query; null when unknown. */
  findApiToken(tokenHash: string): Promise<ApiTokenWithUser | null>;
  /** Records that the token was used at `at` (only moves last_used_at forward). */
  touchApiToken(tokenId: string, at: string): Promise<void>;
  /** Tokens in token_id order, a page at a time: one person's, or everyone's for a null `userId`. */
  listApiTokens(userId: string | null, limit: number, after: string | null): Promise<Page<ApiTokenRecord>>;
  /** Deletes a token (only one of `userId`'s unless null); false when there is no such token. */
  deleteApiToken(tokenId: string, userId: string | null): Promise<boolean>;

  /** The console session with this digest joined with its person, in one query; null when unknown. */
  getSession(sessionHash: string): Promise<SessionWithUser | null>;
  /** Ends every console session of a person; how many there were. */
  endSessionsOf(userId: string): Promise<number>;
}
