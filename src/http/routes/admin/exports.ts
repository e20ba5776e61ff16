import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { type CsvExport, exportScans, exportTickets } from '../../../domain/exports.ts';
import type { App, AppContext } from '../../context.ts';
import { exportScansSchema, exportTicketsSchema } from '../../schemas/report.ts';

/**
 * Sends an export as a download. The first chunk (the header and the store's first page) is read
 * before anything is sent, so a store that fails then gets the error handler's answer (503 with
 * Retry-After). After it, each page is read when the socket has taken the one before (a byte stream's
 * backpressure, a page at most buffered); a store that fails then ends the download early (Fastify
 * destroys the response and logs the error) and the process goes on. A client that goes away stops
 * the paging.
 */
async function sendCsv(reply: FastifyReply, csv: CsvExport): Promise<FastifyReply> {
  const first = await csv.chunks.next();
  async function* all(): AsyncGenerator<string, void, undefined> {
    if (first.done !== true) yield first.value;
    yield* csv.chunks;
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${csv.filename}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(all(), { objectMode: false }));
}

/** After the event: its tickets and its scan log as CSV downloads (the report is in report.ts). */
export function adminExportRoutes(app: App, ctx: AppContext): void {
  app.get('/admin/v1/events/:eid/export/tickets.csv', { schema: exportTicketsSchema }, async (request, reply) =>
    sendCsv(reply, await exportTickets(ctx.store, request.params.eid, ctx.clock.now())),
  );
  app.get('/admin/v1/events/:eid/export/scans.csv', { schema: exportScansSchema }, async (request, reply) =>
    sendCsv(reply, await exportScans(ctx.store, request.params.eid)),
  );
}
