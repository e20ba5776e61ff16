import { requireEvent } from '../../../domain/events.ts';
import { toWire } from '../../../domain/time.ts';
import type { App, AppContext } from '../../context.ts';
import { listConflictsSchema, listScansSchema } from '../../schemas/admin.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** Instants as answers give them. */
const wireTimes = <T extends { scanned_at: string; received_at: string; annulled_at?: string | null }>(scan: T): T => ({
  ...scan,
  scanned_at: toWire(scan.scanned_at),
  received_at: toWire(scan.received_at),
  ...(scan.annulled_at === undefined ? {} : { annulled_at: toWire(scan.annulled_at) }),
});

/** A page of a list cursored by scan_id. */
function scanPage(query: { limit?: string; cursor?: string }): { limit: number; after: number | null } {
  const { limit, cursor } = pageParams(query, CURSOR.scan);
  return { limit, after: cursor === null ? null : Number(cursor) };
}

/** The scan log of an event, oldest first, and its offline double entries, a page at a time. */
export function adminScanRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/scans', { schema: listScansSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, after } = scanPage(request.query);
    const page = await ctx.store.checkIns.listScans(event.eid, limit, after);
    // The contract's shape unless the holder is asked for (the console asks).
    const withHolder = request.query.include === 'holder_name';
    const scans = page.items.map(({ holder_name, ...scan }) => ({
      ...wireTimes(scan),
      ...(withHolder ? { holder_name } : {}),
    }));
    // Like the changes feed: a cursor even at the end, for asking again later from there.
    return { scans, next_cursor: page.next_cursor, has_more: page.has_more };
  });

  app.get('/admin/v1/events/:eid/conflicts', { schema: listConflictsSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, after } = scanPage(request.query);
    const page = await ctx.store.feed.listConflicts(event.eid, limit, after);
    const conflicts = page.items.map((c) => {
      const { admitted_offline: _, ...first } = c.first;
      return { ...c, first: wireTimes(first), duplicates: c.duplicates.map(wireTimes) };
    });
    return pageAnswer('conflicts', conflicts, page.next_cursor);
  });
}
