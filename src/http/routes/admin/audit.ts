import { toWire } from '../../../domain/time.ts';
import type { AuditRecord } from '../../../store/people-records.ts';
import type { App, AppContext } from '../../context.ts';
import { listAuditSchema } from '../../schemas/audit.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/** An entry as the API answers it. */
function auditView(entry: AuditRecord) {
  return {
    at: toWire(entry.at),
    actor: { user_id: entry.user_id, name: entry.actor_name, via: entry.via },
    action: entry.action,
    target: entry.target,
    eid: entry.eid,
    ip: entry.ip,
    details: entry.details,
  };
}

/** The audit trail: read only, a page at a time, of one event and/or one person. */
export function adminAuditRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/audit', { schema: listAuditSchema }, async (request) => {
    // The cursor is the last entry's sequence number, as the scan log's.
    const { limit, cursor } = pageParams(request.query, CURSOR.scan);
    const page = await ctx.store.audit.list({
      eid: request.query.eid ?? null,
      user_id: request.query.user_id ?? null,
      limit,
      before: cursor === null ? null : Number(cursor),
    });
    return pageAnswer('entries', page.items.map(auditView), page.next_cursor);
  });
}
