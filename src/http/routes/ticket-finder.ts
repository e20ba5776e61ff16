import { findHolders } from '../../domain/find-holders.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { findHoldersSchema } from '../schemas/ticket-finder.ts';

/**
 * Finding a holder by name at the gate (scanner keys with `scope.allow_search`: the permission is the
 * route's scope, `search`, judged before the query is validated, so that a key without it gets 403
 * whatever it sent and learns nothing of the event's holders; see scanner-scopes.ts).
 */
export function ticketFinderRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/v1/events/:eid/tickets/search',
    { schema: findHoldersSchema, onRequest: [ctx.limits.statusPerKey, ctx.auth.scanner] },
    async (request) =>
      findHolders(
        { store: ctx.store, clock: ctx.clock, rules: (eid) => ctx.eventSettings.rules(eid) },
        scannerKeyOf(request).eid,
        request.query.q,
      ),
  );
}
