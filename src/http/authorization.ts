import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify';
import { IssuerError } from '../domain/errors.ts';
import { type Action, judge, mayReachEvent, PERMISSIONS, type Principal, type Role } from '../domain/roles.ts';
import type { OwnedResource } from '../store/owning-event.ts';
import type { Store } from '../store/store.ts';
import { principalOf } from './auth.ts';
import type { App } from './context.ts';
import { ROUTE_ACTIONS } from './route-actions.ts';
import { errorAnswer, errorExample } from './schemas/responses.ts';

/**
 * The one place that decides, for every admin operation, whether the request's principal may do it:
 * the route's operationId names its action (`route-actions.ts`), the role table judges it
 * (`judge()` in `domain/roles.ts`). Routes never check a role themselves.
 */

/** What the check needs of a route, worked out once when the route is declared. */
interface RouteRule {
  action: Action;
  /** For an `event` action: the path parameter naming the event, or what belongs to one. */
  scope: { param: string; names: 'event' | OwnedResource } | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    authorization?: RouteRule;
  }
}

const ADMIN_PATH = /^\/admin\/v1(\/|$)/;

/** Path parameters that name an event or something of one event, in the order they are looked for. */
const SCOPE_PARAMS: readonly RouteRule['scope'][] = [
  { param: 'eid', names: 'event' },
  { param: 'tid', names: 'ticket' },
  { param: 'token_id', names: 'enrollment_token' },
  { param: 'api_key_id', names: 'api_key' },
];

/**
 * The routes' own answers for an unknown id. A person limited to some events hears the same for an id
 * of another event: the answer tells an id that exists elsewhere from one that exists nowhere.
 */
const UNKNOWN: Record<'event' | OwnedResource, string> = {
  event: 'no event has this eid',
  ticket: 'no ticket has this tid',
  enrollment_token: 'no enrolment token has this token_id',
  api_key: 'no API key has this api_key_id',
};

/** Marks the scope whose routes run the admin authentication and then this check. */
const AUTHORIZED_SCOPE = Symbol('admin authorization');

const SCOPED_ROLES: readonly Role[] = ['supervisor', 'viewer'];

/** Who may, in words, for the OpenAPI document. */
function rolesNote(action: Action): string {
  const { reach, roles } = PERMISSIONS[action];
  const named = roles.map((role) => (reach === 'event' && SCOPED_ROLES.includes(role) ? `${role} (its events)` : role));
  const tail =
    reach === 'events'
      ? '; a supervisor or viewer sees only its events'
      : reach === 'self'
        ? "; each person their own, an owner everyone's"
        : '';
  return `**Roles:** ${named.join(', ')}${tail} (action \`${action}\`).`;
}

const FORBIDDEN_ANSWER = errorAnswer(403, {
  description:
    'FORBIDDEN: the role may not do this (`details.reason: "role"`); or a write with ' +
    'the console session cookie lacks its X-CSRF-Token',
  examples: {
    role: {
      summary: 'the role may not do this',
      value: errorExample('FORBIDDEN', 'the viewer role may not do ticket.revoke', {
        reason: 'role',
        action: 'ticket.revoke',
      }),
    },
  },
});

const UNKNOWN_ANSWER = errorAnswer(404, {
  description:
    'NOT_FOUND: the id names nothing, or, for a person limited to some events, nothing of their events ' +
    '(the same answer either way)',
});

/**
 * onRoute, for every route of the application: an `/admin/v1` route whose operationId has no rule in
 * ROUTE_ACTIONS, or whose action is declared outside the authorized admin scope, or an event action
 * whose path names no event, stops the issuer at start. Each rule is kept on the route, and the
 * OpenAPI document says who may call it.
 */
export function requireRouteRule(this: FastifyInstance, route: RouteOptions): void {
  if (!ADMIN_PATH.test(route.url)) return;
  const where = `${String(route.method)} ${route.url}`;
  const schema = route.schema as { operationId?: string; description?: string; response?: object } | undefined;
  const operationId = schema?.operationId;
  if (operationId === undefined || !Object.hasOwn(ROUTE_ACTIONS, operationId)) {
    throw new Error(`${where}: operationId ${operationId ?? '(none)'} has no rule in ROUTE_ACTIONS`);
  }
  const action = ROUTE_ACTIONS[operationId]!;
  const authorized = this.hasDecorator(AUTHORIZED_SCOPE);
  if (action === 'public' || action === 'session') {
    if (authorized)
      throw new Error(`${where} (${action}) is declared inside the admin scope, which wants a credential`);
    return;
  }
  if (!authorized) {
    throw new Error(`${where} (${action}) is declared outside the admin scope that authenticates and authorizes`);
  }
  let scope: RouteRule['scope'] = null;
  if (PERMISSIONS[action].reach === 'event') {
    scope = SCOPE_PARAMS.find((s) => route.url.includes(`/:${s!.param}`)) ?? null;
    if (scope === null) throw new Error(`${where} (${action}) names no event in its path`);
  }
  route.config = { ...route.config, authorization: { action, scope } };
  const note = rolesNote(action);
  // A route naming an event, or a thing of one, answers 404 to a person limited to other events.
  const unknown = scope !== null && !Object.hasOwn(schema?.response ?? {}, '404') ? { 404: UNKNOWN_ANSWER } : {};
  route.schema = {
    ...schema,
    description: schema?.description ? `${schema.description}\n\n${note}` : note,
    response: { ...schema?.response, 403: FORBIDDEN_ANSWER, ...unknown },
  };
}

/**
 * The event an `event` action touches, for a principal limited to some events: 404, the route's own
 * answer for an unknown id, when the id names nothing of the principal's events, whether it names
 * something of another event or nothing at all.
 */
async function requireEventInScope(
  store: Store,
  principal: Principal,
  scope: NonNullable<RouteRule['scope']>,
  request: FastifyRequest,
): Promise<string> {
  const id = (request.params as Record<string, string | undefined>)[scope.param] ?? '';
  const eid = scope.names === 'event' ? id : await store.events.eventOf(scope.names, id);
  if (eid === null || !mayReachEvent(principal, eid)) throw new IssuerError('NOT_FOUND', UNKNOWN[scope.names]);
  return eid;
}

function refuse(principal: Principal, action: Action, why: string): never {
  throw new IssuerError('FORBIDDEN', why, { reason: 'role', action, role: principal.role });
}

/**
 * Adds the check to the admin scope, after its authentication (which sets `request.principal`) and
 * before any body is read or validated: a refused caller learns nothing about bodies. The role is
 * judged without the store (403); only a principal limited to some events, on a route naming a ticket,
 * an enrolment token or an API key, costs one read to find that thing's event. An id outside the
 * principal's events answers the 404 of an unknown id, never a 403 naming the other event.
 */
export function authorizeAdminScope(scope: App, store: Store): void {
  const authorize: onRequestAsyncHookHandler = async (request) => {
    const rule = request.routeOptions.config.authorization;
    // Every route of the scope got its rule when declared (requireRouteRule); none is let through without.
    if (rule === undefined) throw new Error(`admin route ${request.routeOptions.url} without its rule`);
    const principal = principalOf(request);
    const byRole = judge(principal, rule.action, null);
    if (!byRole.allowed) refuse(principal, rule.action, byRole.why);
    if (rule.scope === null || principal.events === null) return;
    await requireEventInScope(store, principal, rule.scope, request);
  };
  scope.decorate(AUTHORIZED_SCOPE, true);
  scope.addHook('onRequest', authorize);
}

/**
 * Whether the request's principal may also do `action`, judged by role alone: for a part of an answer
 * only some roles get (a ticket's token). The route's own rule has already kept the request within
 * the principal's events.
 */
export function allows(request: FastifyRequest, action: Action): boolean {
  return judge(principalOf(request), action, null).allowed;
}

/** The events a list of events shows the request's principal (null: all of them; see `event.list`). */
export function listedEvents(request: FastifyRequest): readonly string[] | null {
  return PERMISSIONS['event.list'].reach === 'events' ? principalOf(request).events : null;
}
