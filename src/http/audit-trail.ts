import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { principalOfPerson } from '../domain/people.ts';
import {
  type Action,
  ADMIN_TOKEN_PRINCIPAL,
  type AuditVia,
  isAction,
  PERMISSIONS,
  type Principal,
  type Via,
} from '../domain/roles.ts';
import { toStored } from '../domain/time.ts';
import { type PendingAudit, withAudit } from '../store/audit-context.ts';
import type { OwnedResource } from '../store/owning-event.ts';
import type { AuditRecord, UserRecord } from '../store/people-records.ts';
import type { Store } from '../store/store.ts';
import { principalOf } from './auth.ts';
import { configuredSecrets, secretMasker } from './log-masking.ts';
import { ROUTE_ACTIONS } from './route-actions.ts';

/**
 * The audit trail's HTTP side: every admin write (an `/admin/v1` operation that is not a read, whose
 * rule in ROUTE_ACTIONS is an action) runs its handler with a pending entry, which the store writes in
 * the transaction of the change (see `store/audit-context.ts`). The entry says who (the request's
 * principal), what (the action), on what (the path's last parameter, or what the work created), in
 * which event, from where, and the request's fields that are not secrets.
 */

const ADMIN_PATH = /^\/admin\/v1(\/|$)/;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Path parameters naming something of one event: the store reads that event in the entry's insert. */
const OWNED: Readonly<Record<string, OwnedResource>> = {
  tid: 'ticket',
  token_id: 'enrollment_token',
  api_key_id: 'api_key',
};

/** Fields whose values are credentials, whatever route sends them: never recorded. */
const SECRET_FIELD = /pass(word|phrase)?|token|secret|invit|api_?key|authori[sz]ation|cookie|credential|private/i;

/** A receiver's address as recorded: no user name, password, query or fragment (where credentials travel). */
function safeUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '[not a URL]';
  }
}

/** How deep an entry follows a request's nesting; below it a value reads `[nested]` (a hostile body cannot overflow the stack). */
const DETAIL_DEPTH = 4;

/** A field's value as recorded: objects with their secrets left out, lists element by element, depth bounded. */
function safeValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DETAIL_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((item) => safeValue(item, depth + 1));
  return safeFields(value, depth + 1);
}

/** The request's fields worth recording: secrets left out, a bulk list as its count. */
function safeFields(body: unknown, depth = 0): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (SECRET_FIELD.test(name)) continue;
    if (Array.isArray(value) && (name === 'tickets' || name === 'tids')) fields.count = value.length;
    else if (name === 'url' && typeof value === 'string') fields.url = safeUrl(value);
    else fields[name] = safeValue(value, depth);
  }
  return fields;
}

interface RouteAudit {
  action: Action;
  /** The path's parameters, in order. */
  params: string[];
}

/** Who an entry names: a principal, someone not signed in, or the taker of an invitation. */
type Actor = Pick<Principal, 'user_id' | 'name'> & { via: AuditVia };

/** An entry about a request, at the clock's now, from the request's address. */
export function requestEntry(
  request: FastifyRequest,
  clock: Clock,
  what: { actor: Actor; action: string; target: string | null; eid?: string | null; details?: Record<string, unknown> },
): AuditRecord {
  return {
    at: toStored(clock.now()),
    user_id: what.actor.user_id,
    actor_name: what.actor.name,
    via: what.actor.via,
    action: what.action,
    target: what.target,
    eid: what.eid ?? null,
    ip: request.ip,
    details: what.details ?? {},
  };
}

/** Runs `work` with an entry about the request pending: the work's first change records it (no change, no entry). */
export function recordingRequest<T>(
  request: FastifyRequest,
  clock: Clock,
  what: Parameters<typeof requestEntry>[2],
  work: () => Promise<T>,
): Promise<T> {
  return withAudit({ record: requestEntry(request, clock, what), eventOf: null, state: 'open' }, work);
}

/**
 * Runs a console session's start or end (`action`: session.sign_in, session.sign_out) with its entry
 * pending, so that the transaction that makes it records it; `user` null: the admin token's session.
 */
export function recordingSession<T>(
  request: FastifyRequest,
  clock: Clock,
  session: { user: UserRecord | null; action: string; details?: Record<string, unknown> },
  work: () => Promise<T>,
): Promise<T> {
  const actor = session.user === null ? ADMIN_TOKEN_PRINCIPAL : principalOfPerson(session.user, 'session');
  const target = session.user?.email ?? null;
  return recordingRequest(request, clock, { actor, action: session.action, target, details: session.details }, work);
}

/**
 * Appends a refused sign-in on its own (it changes nothing else): the address typed, only when it is
 * one (a password typed in its place is not), and why; never what was typed as the secret.
 */
export function recordRefusedSignIn(
  store: Store,
  request: FastifyRequest,
  clock: Clock,
  refusal: { via: Via; typed: string | null; details: Record<string, unknown> },
): Promise<void> {
  const typed = refusal.typed !== null && /^[^\s@]{1,64}@[^\s@]{1,255}$/.test(refusal.typed) ? refusal.typed : null;
  return store.audit.append(
    requestEntry(request, clock, {
      actor: { user_id: null, name: 'not signed in', via: refusal.via },
      action: 'session.sign_in_failed',
      target: typed,
      details: refusal.details,
    }),
  );
}

/**
 * Masks each string of a value on its own: masking the value's JSON text instead could cut an escape
 * sequence in two (`?code=x\"…` loses its closing quote) and leave text that is no longer JSON.
 */
function maskStrings(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, mask));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, maskStrings(item, mask)]));
}

/** The entry an admin write starts with; the store fills the event of an owned thing, the work what it creates. */
function pendingEntry(
  request: FastifyRequest,
  route: RouteAudit,
  clock: Clock,
  mask: (text: string) => string,
): PendingAudit {
  const values = (request.params ?? {}) as Record<string, string | undefined>;
  const targetParam = route.params.at(-1);
  const eid = values.eid ?? null;
  const owned =
    eid === null && PERMISSIONS[route.action].reach === 'event'
      ? route.params.find((param) => Object.hasOwn(OWNED, param))
      : undefined;
  const others = route.params.filter((param) => param !== targetParam && param !== 'eid');
  const details = { ...Object.fromEntries(others.map((param) => [param, values[param]])), ...safeFields(request.body) };
  const record = requestEntry(request, clock, {
    actor: principalOf(request),
    action: route.action,
    target: targetParam === undefined ? null : (values[targetParam] ?? null),
    eid,
    // Whatever is shaped like a secret (or is a configured secret) is masked, as in the logs.
    details: maskStrings(details, mask) as Record<string, unknown>,
  });
  return {
    record,
    eventOf: owned === undefined ? null : { resource: OWNED[owned]!, id: values[owned] ?? '' },
    state: 'open',
  };
}

/** What of a route the trail needs, or null for a route it does not record (a read, a public or session route). */
function routeAudit(route: RouteOptions): RouteAudit | null {
  if (!ADMIN_PATH.test(route.url)) return null;
  if ([route.method].flat().every((method) => READS.has(method))) return null;
  const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
  const rule = operationId === undefined ? undefined : ROUTE_ACTIONS[operationId];
  if (rule === undefined || !isAction(rule)) return null;
  return { action: rule, params: [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!) };
}

/** onRoute, for every route of the application (added before any is declared): wraps each admin write's handler. */
export function auditTrail(config: Config, clock: Clock) {
  const mask = secretMasker(configuredSecrets(config));
  return function recordAdminWrites(this: FastifyInstance, route: RouteOptions): void {
    const audit = routeAudit(route);
    if (audit === null) return;
    const handler = route.handler;
    route.handler = function audited(this: FastifyInstance, request, reply) {
      return withAudit(pendingEntry(request, audit, clock, mask), async () => handler.call(this, request, reply));
    };
  };
}
