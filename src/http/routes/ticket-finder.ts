import type { onRequestAsyncHookHandler } from 'fastify';
import { checkHolderSearch, findHolders } from '../../domain/find-holders.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { findHoldersSchema } from '../schemas/ticket-finder.ts';

/**
 * The permission, as a hook after authentication: judged before the query is validated, so that a key
 * without it gets 403 whatever it sent, and learns nothing of the event's holders.
 */
const mayFindHolders: onRequestAsyncHookHandler = async (request) => {
  checkHolderSearch(scannerKeyOf(request), (request.params as { eid?: string }).eid ?? '');
};

/** Finding a holder by name at the gate (scanner keys with `scope.allow_search`). */
export function ticketFinderRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/v1/events/:eid/tickets/search',
    { schema: findHoldersSchema, onRequest: [ctx.limits.statusPerKey, ctx.auth.scanner, mayFindHolders] },
    async (request) =>
      findHolders(
        { store: ctx.store, clock: ctx.clock, rules: (eid) => ctx.eventSettings.rules(eid) },
        scannerKeyOf(request).eid,
        request.query.q,
      ),
  );
}
