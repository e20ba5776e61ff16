import { eventReport } from '../../../domain/report.ts';
import type { App, AppContext } from '../../context.ts';
import { eventReportSchema } from '../../schemas/report.ts';

/** After the event: the report (its CSV exports are in exports.ts). */
export function adminReportRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/report', { schema: eventReportSchema }, async (request) =>
    eventReport(ctx.store, request.params.eid),
  );
}
