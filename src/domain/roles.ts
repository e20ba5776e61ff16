/**
 * Who may do what: the one table of role × action (CONTRACT.md, "People, roles and the audit trail").
 * Routes never check a role: one hook in `src/http/` reads this table for every admin operation.
 */

export const ROLES = ['owner', 'manager', 'supervisor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** How a person proved who they are on this request (the audit trail's `actor.via`). */
export type Via = 'session' | 'token' | 'admin_token';
/** How the actor of an audit entry proved who they are: as a principal does, or with an invitation link. */
export type AuditVia = Via | 'invitation';

/** The one acting on an admin request. */
export interface Principal {
  /** Null for the built-in owner (the admin token). */
  user_id: string | null;
  name: string;
  role: Role;
  /** The events a supervisor or viewer may see (null: every event). Owners and managers: null. */
  events: readonly string[] | null;
  via: Via;
}

/** The admin token: the built-in owner, for scripts, the first start and recovery. */
export const ADMIN_TOKEN_PRINCIPAL: Principal = {
  user_id: null,
  name: 'admin token',
  role: 'owner',
  events: null,
  via: 'admin_token',
};

/**
 * Where an action applies: `event` actions name one event (a scoped person must have it in their
 * list); `events` lists events (each person sees their own); `organization` actions touch what belongs
 * to no single event (people, webhooks, signing keys, the audit trail); `self` actions touch only the
 * person's own things (their personal API tokens), and an owner's reach covers everyone's.
 */
export type Reach = 'event' | 'events' | 'organization' | 'self';

interface Rule {
  reach: Reach;
  roles: readonly Role[];
}

const EVERYONE: readonly Role[] = ['owner', 'manager', 'supervisor', 'viewer'];
const AT_THE_GATE: readonly Role[] = ['owner', 'manager', 'supervisor'];
const MANAGERS: readonly Role[] = ['owner', 'manager'];
const OWNERS: readonly Role[] = ['owner'];

/**
 * The table. Actions are named `<resource>.<verb>`, as the audit trail records them. A supervisor reads
 * everything of its events and revokes tickets, enrolment tokens and scanner keys, annuls entries and
 * makes enrolment tokens and sends tickets by email; a viewer reads its events (their report and
 * exports included), but not a ticket's token (`ticket_token.read`: the
 * token in ticket answers and the printed QR codes), which is an entry credential; a manager does
 * everything but people; an owner does everything.
 */
export const PERMISSIONS = {
  'event.list': { reach: 'events', roles: EVERYONE },
  'event.read': { reach: 'event', roles: EVERYONE },
  'event.create': { reach: 'organization', roles: MANAGERS },
  'event.update': { reach: 'event', roles: MANAGERS },
  'gate.read': { reach: 'event', roles: EVERYONE },
  'gate.put': { reach: 'event', roles: MANAGERS },
  'gate.delete': { reach: 'event', roles: MANAGERS },
  'ticket_type.read': { reach: 'event', roles: EVERYONE },
  'ticket_type.put': { reach: 'event', roles: MANAGERS },
  'ticket_type.delete': { reach: 'event', roles: MANAGERS },
  'ticket.read': { reach: 'event', roles: EVERYONE },
  'ticket.create': { reach: 'event', roles: MANAGERS },
  'ticket.update': { reach: 'event', roles: MANAGERS },
  'ticket.revoke': { reach: 'event', roles: AT_THE_GATE },
  'ticket.reissue': { reach: 'event', roles: MANAGERS },
  'ticket_token.read': { reach: 'event', roles: AT_THE_GATE },
  'enrollment_token.read': { reach: 'event', roles: EVERYONE },
  'enrollment_token.create': { reach: 'event', roles: AT_THE_GATE },
  'enrollment_token.revoke': { reach: 'event', roles: AT_THE_GATE },
  'scanner.read': { reach: 'event', roles: EVERYONE },
  'api_key.revoke': { reach: 'event', roles: AT_THE_GATE },
  'scan.read': { reach: 'event', roles: EVERYONE },
  'scan.annul': { reach: 'event', roles: AT_THE_GATE },
  'delivery.read': { reach: 'event', roles: EVERYONE },
  'delivery.send': { reach: 'event', roles: AT_THE_GATE },
  'report.read': { reach: 'event', roles: EVERYONE },
  'signing_key.read': { reach: 'organization', roles: MANAGERS },
  'signing_key.rotate': { reach: 'organization', roles: MANAGERS },
  'signing_key.delete': { reach: 'organization', roles: MANAGERS },
  'webhook.read': { reach: 'organization', roles: MANAGERS },
  'webhook.create': { reach: 'organization', roles: MANAGERS },
  'webhook.update': { reach: 'organization', roles: MANAGERS },
  'webhook.delete': { reach: 'organization', roles: MANAGERS },
  'webhook.rotate_secret': { reach: 'organization', roles: MANAGERS },
  'webhook.test': { reach: 'organization', roles: MANAGERS },
  'webhook.redeliver': { reach: 'organization', roles: MANAGERS },
  'user.read': { reach: 'organization', roles: OWNERS },
  'user.create': { reach: 'organization', roles: OWNERS },
  'user.update': { reach: 'organization', roles: OWNERS },
  'user.delete': { reach: 'organization', roles: OWNERS },
  'user.invite': { reach: 'organization', roles: OWNERS },
  'api_token.read': { reach: 'self', roles: EVERYONE },
  'api_token.create': { reach: 'self', roles: EVERYONE },
  'api_token.delete': { reach: 'self', roles: EVERYONE },
  'audit.read': { reach: 'organization', roles: MANAGERS },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof PERMISSIONS;

export function isAction(name: string): name is Action {
  return Object.hasOwn(PERMISSIONS, name);
}

/** Why a principal may not do something (the 403's `details.reason` is always "role"). */
export type Refusal = { allowed: false; why: string };
export type Verdict = { allowed: true } | Refusal;

/**
 * Whether `principal` may do `action`; `eid` is the event an `event` action touches (resolved by the
 * caller from the route). Pure: no store access, so the check costs no round trip.
 */
export function judge(principal: Principal, action: Action, eid: string | null): Verdict {
  const rule: Rule = PERMISSIONS[action];
  if (!rule.roles.includes(principal.role)) {
    return { allowed: false, why: `the ${principal.role} role may not do ${action}` };
  }
  if (rule.reach === 'event' && eid !== null && !mayReachEvent(principal, eid)) {
    return { allowed: false, why: `this ${principal.role} may not act on event ${eid}` };
  }
  return { allowed: true };
}

/**
 * Whose things a `self` action (personal API tokens) reaches: the principal's own (their user_id), or
 * everyone's (null) for an owner, the admin token included.
 */
export function selfReach(principal: Principal): string | null {
  // Every principal but the admin token is a person; a person-less non-owner would reach nobody's.
  return principal.role === 'owner' ? null : (principal.user_id ?? '');
}

/** Whether the principal's event list includes `eid` (always, for a list of null). */
export function mayReachEvent(principal: Principal, eid: string): boolean {
  return principal.events === null || principal.events.includes(eid);
}
