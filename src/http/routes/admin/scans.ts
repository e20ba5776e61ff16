import { invalidRequest } from '../../../domain/errors.ts';
import { requireEvent } from '../../../domain/events.ts';
import { toWire } from '../../../domain/time.ts';
import type { App, AppContext } from '../../context.ts';
import { listConflictsSchema, listScansSchema } from '../../schemas/admin.ts';
import { pageParams } from './paging.ts';

/** A scan-log cursor: a scan_id this issuer gave. */
function scanCursor(cursor: string | null): number | null {
  if (cursor !== null && !/^\d{1,15}$/.test(cursor)) {
    throw invalidRequest('cursor is not one this issuer gave', [{ field: 'cursor', problem: 'unknown cursor' }]);
  }
  return cursor === null ? null : Number(cursor);
}

const conflictScanView = <T extends { scanned_at: string; received_at: string }>(scan: T): T => ({
  ...scan,
  scanned_at: toWire(scan.scanned_at),
  received_at: toWire(scan.received_at),
});

/** The scan log of an event, oldest first, and its offline double entries, a page at a time. */
export function adminScanRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/scans', { schema: listScansSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query);
    const page = await ctx.store.listScans(event.eid, limit, scanCursor(cursor));
    return {
      scans: page.items.map((s) => ({ ...s, scanned_at: toWire(s.scanned_at), received_at: toWire(s.received_at) })),
      next_cursor: page.next_cursor,
    };
  });

  app.get('/admin/v1/events/:eid/conflicts', { schema: listConflictsSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query);
    const page = await ctx.store.listConflicts(event.eid, limit, scanCursor(cursor));
    return {
      conflicts: page.items.map((c) => {
        const { admitted_offline: _, ...first } = c.first;
        return { ...c, first: conflictScanView(first), duplicates: c.duplicates.map(conflictScanView) };
      }),
      next_cursor: page.next_cursor,
      has_more: page.next_cursor !== null,
    };
  });
}
