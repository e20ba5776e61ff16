import { createHash } from 'node:crypto';
import type { AdminSessionRecord, Store } from '../store/store.ts';
import type { SessionWithUser, UserRecord } from '../store/people-store.ts';
import type { Clock } from './clock.ts';
import { hashesEqual, hashSecret, isSecretShaped, newSecret } from './ids.ts';
import { HOUR_MS, toStored } from './time.ts';

/** The prefix of a console session id (the cookie's value). */
export const ADMIN_SESSION_PREFIX = 'as_';
/** A session unused this long ends: an unattended laptop at the door does not stay signed in. */
export const SESSION_IDLE_MS = 12 * HOUR_MS;
/** A session ends this long after sign-in, used or not: one event day, then sign in again. */
export const SESSION_LIFETIME_MS = 24 * HOUR_MS;
/** last_seen_at is kept to the minute: a console polls every few seconds, a write each time would be waste. */
const TOUCH_RESOLUTION_MS = 60_000;

/**
 * The CSRF token of a session: a digest of its id under a label of its own. It needs no storage and no
 * key shared by the instances, is worthless without the session, and dies with it; only a holder of
 * the session id (the HttpOnly cookie, which script cannot read) can compute it, and the stored hash
 * (another digest) does not give it either.
 */
export function csrfTokenOf(sessionId: string): string {
  return createHash('sha256').update(`console csrf token\0${sessionId}`, 'utf8').digest('base64url');
}

/** True when `presented` is the session's CSRF token; constant time. */
export function csrfTokenMatches(sessionId: string, presented: string | null): boolean {
  // Digests of both sides have one length, so the comparison takes one time whatever was sent.
  const equal = hashesEqual(hashSecret(csrfTokenOf(sessionId)), hashSecret(presented ?? ''));
  return equal && presented !== null;
}

export interface StartedSession {
  /** The secret session id: goes into the cookie, never into the store. */
  sessionId: string;
  record: AdminSessionRecord;
}

/**
 * What a session keeps of the admin token it was opened with: a digest of the token's hash. When the
 * admin token changes (ADMIN_TOKEN, or `npm run reset-admin-token`), every session opened with the old
 * one ends: a leaked token's sessions do not outlive its replacement.
 */
export function adminTokenTag(adminTokenHash: string): string {
  return hashSecret(`admin token tag\0${adminTokenHash}`);
}

/**
 * What a person's session keeps in place of the admin token's tag: a new admin token does not end the
 * sessions of people (their own password or single sign-on opened them); disabling or deleting the
 * person does.
 */
export const PERSON_SESSION_TAG = 'person';

async function startSession(store: Store, clock: Clock, tag: string, userId: string | null): Promise<StartedSession> {
  const now = clock.now();
  const sessionId = newSecret(ADMIN_SESSION_PREFIX);
  const record: AdminSessionRecord = {
    session_hash: hashSecret(sessionId),
    admin_token_tag: tag,
    user_id: userId,
    created_at: toStored(now),
    last_seen_at: toStored(now),
    expires_at: toStored(new Date(now.getTime() + SESSION_LIFETIME_MS)),
  };
  await store.sessions.createAdminSession(record);
  return { sessionId, record };
}

/** Starts a session (the caller has checked the admin token, whose hash is given). */
export function startAdminSession(store: Store, clock: Clock, adminTokenHash: string): Promise<StartedSession> {
  return startSession(store, clock, adminTokenTag(adminTokenHash), null);
}

/** Starts a session of a person (the caller has checked who they are: password or single sign-on). */
export function startPersonSession(store: Store, clock: Clock, user: UserRecord): Promise<StartedSession> {
  return startSession(store, clock, PERSON_SESSION_TAG, user.user_id);
}

/** When the session ends if it stays unused from now on. */
export function sessionEndsAt(record: AdminSessionRecord): string {
  const idleEnd = toStored(new Date(Date.parse(record.last_seen_at) + SESSION_IDLE_MS));
  return idleEnd < record.expires_at ? idleEnd : record.expires_at;
}

/** A live console session and its person (null for a session opened with the admin token). */
export interface LiveSession {
  record: AdminSessionRecord;
  user: UserRecord | null;
}

/** Whether a session still stands for who opened it: its person enabled, or the admin token unchanged. */
function stillValid(found: SessionWithUser, adminTokenHash: string): boolean {
  if (found.session.user_id !== null) return found.user !== null && found.user.disabled_at === null;
  return hashesEqual(found.session.admin_token_tag, adminTokenTag(adminTokenHash));
}

/**
 * The live session of a presented id with its person, read together in one query, or null (unknown,
 * idle too long, past its lifetime, opened with another admin token, its person disabled or gone; an
 * ended session is deleted). Records the use, to the minute.
 */
export async function findAdminSession(
  store: Store,
  clock: Clock,
  sessionId: string,
  adminTokenHash: string,
): Promise<LiveSession | null> {
  if (!isSecretShaped(ADMIN_SESSION_PREFIX, sessionId)) return null;
  const hash = hashSecret(sessionId);
  const found = await store.people.getSession(hash);
  if (!found) return null;
  const record = found.session;
  const now = toStored(clock.now());
  if (sessionEndsAt(record) <= now || !stillValid(found, adminTokenHash)) {
    await store.sessions.deleteAdminSession(hash);
    return null;
  }
  if (Date.parse(now) - Date.parse(record.last_seen_at) >= TOUCH_RESOLUTION_MS) {
    await store.sessions.touchAdminSession(hash, now);
    return { record: { ...record, last_seen_at: now }, user: found.user };
  }
  return { record, user: found.user };
}

/** Ends a session on the server: its cookie no longer works anywhere. */
export async function endAdminSession(store: Store, sessionId: string): Promise<void> {
  await store.sessions.deleteAdminSession(hashSecret(sessionId));
}
