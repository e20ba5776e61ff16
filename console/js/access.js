/**
 * Who is signed in and what their role lets them do, so that the console offers only the controls
 * they may use. The issuer decides all the same (its table is src/domain/roles.ts; a test keeps this
 * copy equal to it): a control left out here is a courtesy, not a protection. Pure (no DOM), so
 * Node's test runner loads it as it is served.
 */

export const ROLES = ['owner', 'manager', 'supervisor', 'viewer'];

const EVERYONE = ROLES;
const AT_THE_GATE = ['owner', 'manager', 'supervisor'];
const MANAGERS = ['owner', 'manager'];
const OWNERS = ['owner'];

/** The actions the console offers a control for, and the roles that may use it. */
export const CONSOLE_ACTIONS = {
  'event.list': EVERYONE,
  'event.read': EVERYONE,
  'event.create': MANAGERS,
  'event.update': MANAGERS,
  'gate.put': MANAGERS,
  'gate.delete': MANAGERS,
  'ticket_type.put': MANAGERS,
  'ticket_type.delete': MANAGERS,
  'ticket.create': MANAGERS,
  'ticket.update': MANAGERS,
  'ticket.revoke': AT_THE_GATE,
  'ticket.reissue': MANAGERS,
  'ticket_token.read': AT_THE_GATE,
  'enrollment_token.create': AT_THE_GATE,
  'enrollment_token.revoke': AT_THE_GATE,
  'api_key.revoke': AT_THE_GATE,
  'scan.annul': AT_THE_GATE,
  'delivery.send': AT_THE_GATE,
  'signing_key.read': MANAGERS,
  'signing_key.rotate': MANAGERS,
  'webhook.read': MANAGERS,
  'webhook.create': MANAGERS,
  'user.read': OWNERS,
  'user.create': OWNERS,
  'user.update': OWNERS,
  'user.invite': OWNERS,
  'audit.read': MANAGERS,
  // Every person makes, lists and deletes their own; an owner's reach covers everyone's.
  'api_token.read': EVERYONE,
  'api_token.create': EVERYONE,
  'api_token.delete': EVERYONE,
};

/** Actions that touch one event: a supervisor or viewer may do them on its own events only. */
const EVENT_ACTIONS = new Set([
  'event.read',
  'event.update',
  'gate.put',
  'gate.delete',
  'ticket_type.put',
  'ticket_type.delete',
  'ticket.create',
  'ticket.update',
  'ticket.revoke',
  'ticket.reissue',
  'ticket_token.read',
  'enrollment_token.create',
  'enrollment_token.revoke',
  'api_key.revoke',
  'scan.annul',
  'delivery.send',
]);

/** The admin token's session: the built-in owner. */
const BUILT_IN_OWNER = { role: 'owner', user: null, events: null };

let current = BUILT_IN_OWNER;

/**
 * Learns who is signed in from a session answer (`{csrf_token, expires_at, role, user}`, where `user`
 * is null for the admin token or `{user_id, email, name, role, events}`). An answer without a role
 * (an issuer from before people) is the admin token's.
 */
export function setSession(answer) {
  const user = answer?.user ?? null;
  const role = ROLES.includes(answer?.role) ? answer.role : (user?.role ?? 'owner');
  current = { role, user, events: Array.isArray(user?.events) ? user.events : null };
}

/** Forgets the person (signed out). */
export function clearSession() {
  current = BUILT_IN_OWNER;
}

/** The signed-in person: `{role, user, events}`. */
export const signedIn = () => current;

/**
 * Whether the signed-in person may use the control of `action` (on event `eid`, for actions on one
 * event). An action the console does not know is not offered.
 */
export function may(action, eid) {
  const roles = CONSOLE_ACTIONS[action];
  if (!roles || !roles.includes(current.role)) return false;
  if (eid === undefined || !EVENT_ACTIONS.has(action) || current.events === null) return true;
  return current.events.includes(eid);
}

/** Who is signed in, in words: "Ada Lovelace (supervisor)", or "Admin token (owner)". */
export function whoText() {
  const name = current.user ? current.user.name || current.user.email : 'Admin token';
  return `${name} (${current.role})`;
}
