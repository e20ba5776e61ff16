import { ticketByCode, ticketGroup } from '../../domain/groups.ts';
import { invalidRequest } from '../../domain/errors.ts';
import { readCodes, readRoster, ROSTER_LIMIT, type RosterQuery } from '../../domain/roster.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { ticketByCodeSchema, ticketGroupSchema } from '../schemas/groups.ts';
import { codesSchema, rosterSchema } from '../schemas/roster.ts';

/** A page query's limit, 1 to the roster's largest page; 400 naming `limit` otherwise. */
function rosterQuery(query: { cursor?: string; limit?: string }): RosterQuery {
  if (query.limit === undefined) return { cursor: query.cursor };
  const limit = Number(query.limit);
  if (!(limit >= 1 && limit <= ROSTER_LIMIT.max)) {
    throw invalidRequest(`limit must be from 1 to ${ROSTER_LIMIT.max}`, [
      { field: 'limit', problem: `must be a whole number from 1 to ${ROSTER_LIMIT.max}` },
    ]);
  }
  return { cursor: query.cursor, limit };
}

/**
 * Groups, short codes and the offline roster, each of the key's own event (the routes' scope, see
 * scanner-scopes.ts; the roster's is `search`: keys with `allow_search` only).
 */
export function groupRoutes(app: App, ctx: AppContext): void {
  const lookup = { onRequest: [ctx.limits.statusPerKey, ctx.auth.scanner] };
  const sync = { onRequest: [ctx.limits.changesPerKey, ctx.auth.scanner] };
  const groupDeps = { store: ctx.store, clock: ctx.clock, rules: (eid: string) => ctx.eventSettings.rules(eid) };

  app.get('/api/v1/events/:eid/tickets/:tid/group', { schema: ticketGroupSchema, ...lookup }, async (request) =>
    ticketGroup(groupDeps, scannerKeyOf(request).eid, request.params.tid),
  );

  app.get('/api/v1/events/:eid/tickets/by-code/:code', { schema: ticketByCodeSchema, ...lookup }, async (request) =>
    ticketByCode(ctx.store, scannerKeyOf(request).eid, request.params.code),
  );

  app.get('/api/v1/events/:eid/roster', { schema: rosterSchema, ...sync }, async (request) =>
    readRoster(ctx.store, scannerKeyOf(request).eid, rosterQuery(request.query)),
  );

  app.get('/api/v1/events/:eid/codes', { schema: codesSchema, ...sync }, async (request) =>
    readCodes(ctx.store, scannerKeyOf(request).eid, rosterQuery(request.query)),
  );
}
