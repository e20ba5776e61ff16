import { annulByOrganizer, annulByScanner, type AnnulDeps } from '../../domain/annul.ts';
import { requireEvent } from '../../domain/events.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { SCAN_BODY_LIMIT_BYTES } from '../oversized-body.ts';
import { adminAnnulSchema, annulSchema } from '../schemas/annul.ts';

/** What an annul needs: the store, the clock, the window, the event's rules (for the gate's notes). */
export const annulDeps = (ctx: AppContext): AnnulDeps => ({
  store: ctx.store,
  clock: ctx.clock,
  windowSeconds: ctx.config.annulWindowSeconds,
  rules: (eid) => ctx.eventSettings.rules(eid),
});

/** A scanner undoes its own entry. */
export function annulRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/v1/tickets/check-in/annul',
    {
      schema: annulSchema,
      bodyLimit: SCAN_BODY_LIMIT_BYTES,
      onRequest: [ctx.limits.checkInPerKey, ctx.auth.scannerCheckIn],
    },
    async (request) => annulByScanner(annulDeps(ctx), scannerKeyOf(request), request.body),
  );
}

/** An organizer undoes the entry of a line of the scan log (in the admin scope: authenticated, authorized). */
export function adminAnnulRoutes(app: App, ctx: AppContext): void {
  app.post('/admin/v1/events/:eid/scans/:scan_id/annul', { schema: adminAnnulSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const reason = request.body?.reason;
    if (reason !== undefined)
      request.log.info({ eid: event.eid, scan_id: request.params.scan_id, reason }, 'entry annulled by the organizer');
    return annulByOrganizer(annulDeps(ctx), event.eid, Number(request.params.scan_id));
  });
}
