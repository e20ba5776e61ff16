import { invalidRequest } from '../../../domain/errors.ts';
import { requireEvent } from '../../../domain/events.ts';
import { toWire } from '../../../domain/time.ts';
import type { App, AppContext } from '../../context.ts';
import { listScansSchema } from '../../schemas/admin.ts';
import { pageParams } from './paging.ts';

/** The scan log of an event, oldest first, a page at a time. */
export function adminScanRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/scans', { schema: listScansSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query);
    if (cursor !== null && !/^\d{1,15}$/.test(cursor)) {
      throw invalidRequest('cursor is not one this issuer gave', [{ field: 'cursor', problem: 'unknown cursor' }]);
    }
    const page = await ctx.store.listScans(event.eid, limit, cursor === null ? null : Number(cursor));
    return {
      scans: page.items.map((s) => ({ ...s, scanned_at: toWire(s.scanned_at), received_at: toWire(s.received_at) })),
      next_cursor: page.next_cursor,
    };
  });
}
