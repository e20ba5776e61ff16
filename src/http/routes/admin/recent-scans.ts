import { requireEvent } from '../../../domain/events.ts';
import { toWire } from '../../../domain/time.ts';
import type { App, AppContext } from '../../context.ts';
import { listRecentScansSchema } from '../../schemas/admin.ts';
import { CURSOR, pageParams } from './paging.ts';

/**
 * The latest scans of an event, newest first, a page at a time: the console shows a page and a
 * "Load more", then follows the log from `newer_cursor`; it never reads the whole log.
 */
export function adminRecentScanRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/scans/recent', { schema: listRecentScansSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query, CURSOR.scan);
    const page = await ctx.store.checkIns.listRecentScans(event.eid, limit, cursor === null ? null : Number(cursor));
    const withHolder = request.query.include === 'holder_name';
    const scans = page.items.map(({ holder_name, ...scan }) => ({
      ...scan,
      scanned_at: toWire(scan.scanned_at),
      received_at: toWire(scan.received_at),
      annulled_at: toWire(scan.annulled_at),
      ...(withHolder ? { holder_name } : {}),
    }));
    return {
      scans,
      next_cursor: page.next_cursor,
      has_more: page.next_cursor !== null,
      newer_cursor: page.newer_cursor,
    };
  });
}
