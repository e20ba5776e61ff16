import type { Store } from '../store/store.ts';
import type { UserChange, UserRecord } from '../store/people-store.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { hashSecret, isSecretShaped, newSecret, newUserId } from './ids.ts';
import { type Derive, hashPassword, passwordProblem } from './passwords.ts';
import type { Principal, Role, Via } from './roles.ts';
import { HOUR_MS, toStored, toWire } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

/** The prefix of an invitation's secret (the `#invite=` of its link). */
export const INVITE_PREFIX = 'inv_';
/** An invitation link works this long, once. */
export const INVITE_LIFETIME_MS = 72 * HOUR_MS;

/** Roles limited to the events chosen for them; owners and managers reach every event. */
const SCOPED_ROLES: readonly Role[] = ['supervisor', 'viewer'];

/** One person per address: compared trimmed and in lower case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** What the admin API shows of a person (never a hash). */
export function userView(user: UserRecord) {
  return {
    user_id: user.user_id,
    email: user.email,
    name: user.name,
    role: user.role,
    events: user.events,
    disabled: user.disabled_at !== null,
    created_at: toWire(user.created_at),
  };
}

/** The principal of a request made by this person (signed in, or with one of their tokens). */
export function principalOfPerson(user: UserRecord, via: Via): Principal {
  return {
    user_id: user.user_id,
    name: user.name,
    role: user.role,
    events: SCOPED_ROLES.includes(user.role) ? user.events : null,
    via,
  };
}

/**
 * Checks a person's role and events: a list of events applies to supervisors and viewers only, and
 * names events that exist (a mistyped eid would give a person nothing without saying so).
 */
async function checkAccess(store: Store, role: Role, events: string[] | null): Promise<void> {
  if (events === null) return;
  if (!SCOPED_ROLES.includes(role)) {
    throw invalidRequest(`a list of events applies to supervisors and viewers; an ${role} reaches every event`, [
      { field: 'events', problem: `must be null for the ${role} role` },
    ]);
  }
  for (const eid of new Set(events)) {
    if ((await store.events.getEvent(eid)) === null) {
      throw invalidRequest(`no event has the eid ${eid}`, [
        { field: 'events', problem: `no event has the eid ${eid}` },
      ]);
    }
  }
}

/** An invitation's one-time link and when it stops working. */
export interface Invitation {
  inviteUrl: string;
  expiresAt: string;
}

/** A fresh invitation for the person, ending the earlier ones (the secret is kept only as a digest). */
async function invite(store: Store, clock: Clock, baseUrl: string, userId: string): Promise<Invitation | null> {
  const now = clock.now();
  const token = newSecret(INVITE_PREFIX);
  const expiresAt = toStored(new Date(now.getTime() + INVITE_LIFETIME_MS));
  const stored = await store.people.createInvite({
    invite_hash: hashSecret(token),
    user_id: userId,
    created_at: toStored(now),
    expires_at: expiresAt,
    used_at: null,
  });
  return stored ? { inviteUrl: `${baseUrl.replace(/\/+$/, '')}/console/#invite=${token}`, expiresAt } : null;
}

export interface NewPerson {
  email: string;
  name: string;
  role: Role;
  events?: string[] | null;
}

/** Adds a person and invites them: 409 CONFLICT when the address has a person already. */
export async function createPerson(store: Store, clock: Clock, baseUrl: string, body: NewPerson) {
  const events = dedupe(body.events ?? null);
  await checkAccess(store, body.role, events);
  const now = toStored(clock.now());
  const user: UserRecord = {
    user_id: newUserId(),
    email: normalizeEmail(body.email),
    name: body.name,
    role: body.role,
    events,
    disabled_at: null,
    password_hash: null,
    created_at: now,
    updated_at: now,
  };
  noteAudit({ target: user.user_id });
  if ((await store.people.createUser(user)) === 'email_taken') {
    throw new IssuerError('CONFLICT', 'a person with this email address exists already', {
      fields: [{ field: 'email', problem: 'is the address of another person' }],
    });
  }
  const { inviteUrl } = (await invite(store, clock, baseUrl, user.user_id))!;
  return { user, inviteUrl };
}

/** The person, or 404. */
export async function requirePerson(store: Store, userId: string): Promise<UserRecord> {
  const user = await store.people.getUser(userId);
  if (user === null) throw new IssuerError('NOT_FOUND', 'no person has this user_id');
  return user;
}

/**
 * Changes a person. Disabling ends their console sessions and deletes their personal tokens at once, on
 * every instance (each request reads the session or token with its person); enabling them again brings
 * neither back. A role for every event clears a list of events.
 */
export async function changePerson(store: Store, clock: Clock, userId: string, change: UserChange) {
  const current = await requirePerson(store, userId);
  const role = change.role ?? current.role;
  const next: UserChange = { ...change, events: change.events === undefined ? undefined : dedupe(change.events) };
  if (next.events === undefined && !SCOPED_ROLES.includes(role) && current.events !== null) next.events = null;
  if (next.events !== undefined) await checkAccess(store, role, next.events);
  // A change that changes nothing writes nothing: no updated_at moves, the audit trail records nothing.
  if (changesNothing(current, next)) return current;
  const user = await store.people.updateUser(userId, next, toStored(clock.now()));
  if (user === null) throw new IssuerError('NOT_FOUND', 'no person has this user_id');
  return user;
}

/** Whether every field `change` names already has that value (a list of events: the same events). */
function changesNothing(current: UserRecord, change: UserChange): boolean {
  const sameEvents = (a: readonly string[] | null, b: readonly string[] | null) =>
    a === null || b === null ? a === b : a.length === b.length && a.every((eid) => b.includes(eid));
  return (
    (change.name === undefined || change.name === current.name) &&
    (change.role === undefined || change.role === current.role) &&
    (change.events === undefined || sameEvents(change.events, current.events)) &&
    (change.disabled === undefined || change.disabled === (current.disabled_at !== null))
  );
}

const dedupe = (events: string[] | null) => (events === null ? null : [...new Set(events)]);

/** Removes a person, their sessions, invitations and tokens; 404 when there is none. */
export async function deletePerson(store: Store, userId: string): Promise<void> {
  if (!(await store.people.deleteUser(userId))) throw new IssuerError('NOT_FOUND', 'no person has this user_id');
}

/** A new invitation link for a person (the earlier ones stop working); 404 when there is none. */
export async function reinvitePerson(store: Store, clock: Clock, baseUrl: string, userId: string): Promise<Invitation> {
  const made = await invite(store, clock, baseUrl, userId);
  if (made === null) throw new IssuerError('NOT_FOUND', 'no person has this user_id');
  return made;
}

/** The refusal of an invitation token that is unknown, used or expired: 400 naming `invite_token`. */
export const invitationRefused = () =>
  invalidRequest('this invitation is unknown, used or expired; ask for a new one', [
    { field: 'invite_token', problem: 'is unknown, used or expired' },
  ]);

/**
 * Sets a person's password from their invitation: once, within its 72 hours; `refused` for a token
 * that is unknown, used or expired (or a disabled person's). The invitation is looked up before the
 * password is hashed (a made-up token costs no hash), and taken after (the hash is slow, the taking
 * is one short transaction that checks it all again).
 */
export async function acceptInvitation(
  store: Store,
  clock: Clock,
  derive: Derive,
  token: string,
  password: string,
): Promise<UserRecord | 'refused'> {
  const problem = passwordProblem(password);
  if (problem !== null) throw invalidRequest(`the password ${problem}`, [{ field: 'password', problem }]);
  if (!isSecretShaped(INVITE_PREFIX, token)) return 'refused';
  const inviteHash = hashSecret(token);
  if (!(await store.people.inviteOpen(inviteHash, toStored(clock.now())))) return 'refused';
  const passwordHash = await hashPassword(password, derive);
  return (await store.people.acceptInvite(inviteHash, passwordHash, toStored(clock.now()))) ?? 'refused';
}
