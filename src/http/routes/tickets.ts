import { readChanges } from '../../domain/changes.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkIn, type CheckInDeps, checkOut } from '../../domain/check-in.ts';
import type { ApiKeyRecord, StoredAnswer } from '../../store/store.ts';
import { ticketStatus } from '../../domain/ticket-status.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { SCAN_BODY_LIMIT_BYTES } from '../oversized-body.ts';
import { changesSchema } from '../schemas/changes.ts';
import { checkInSchema, checkOutSchema, statusSchema } from '../schemas/tickets.ts';

/** The scanner's ticket routes: check-in, status, and the changes feed offline scanners sync (rules: event-rules.ts). */
export function ticketRoutes(app: App, ctx: AppContext): void {
  const scan = { bodyLimit: SCAN_BODY_LIMIT_BYTES, onRequest: [ctx.limits.checkInPerKey, ctx.auth.scannerCheckIn] };

  app.post('/api/v1/tickets/check-in', { schema: checkInSchema, ...scan }, async (request, reply) => {
    const key = scannerKeyOf(request);
    const { answer, replay } = await checkIn(
      scanDeps(ctx, request, key),
      key,
      request.body,
      idempotencyHeader(request),
    );
    ctx.metrics.checkIn((answer.body as { status?: unknown }).status, replay);
    return sendStored(reply, answer, replay);
  });

  app.post('/api/v1/tickets/check-out', { schema: checkOutSchema, ...scan }, async (request, reply) => {
    const key = scannerKeyOf(request);
    const { answer, replay } = await checkOut(
      scanDeps(ctx, request, key),
      key,
      request.body,
      idempotencyHeader(request),
    );
    return sendStored(reply, answer, replay);
  });

  app.get(
    '/api/v1/tickets/:tid/status',
    { schema: statusSchema, onRequest: [ctx.limits.statusPerKey, ctx.auth.scanner] },
    async (request) =>
      ticketStatus(
        { store: ctx.store, clock: ctx.clock, rules: (eid) => ctx.eventSettings.rules(eid) },
        scannerKeyOf(request),
        request.params.tid,
      ),
  );

  app.get(
    '/api/v1/events/:eid/changes',
    { schema: changesSchema, onRequest: [ctx.limits.changesPerKey, ctx.auth.scanner] },
    async (request) => {
      // Of the key's own event: the route's scope (see scanner-scopes.ts).
      return readChanges(ctx.store, scannerKeyOf(request).eid, request.query);
    },
  );
}

/** What recording a scan needs: the store, the clock, the signer, and where a lost log line is told. */
export function scanDeps(ctx: AppContext, request: FastifyRequest, key: ApiKeyRecord): CheckInDeps {
  return {
    store: ctx.store,
    clock: ctx.clock,
    signer: ctx.signer,
    issuer: ctx.config.baseUrl,
    rules: (eid) => ctx.eventSettings.rules(eid),
    onLogFailure: (error) =>
      request.log.error({ err: error, api_key_id: key.api_key_id }, 'refused attempt not written to the scan log'),
  };
}

const idempotencyHeader = (request: FastifyRequest): string | undefined => {
  const value = request.headers['idempotency-key'];
  return Array.isArray(value) ? value[0] : value;
};

/** A stored answer: replays return exactly what the first attempt got, whatever its status. */
function sendStored(reply: FastifyReply, answer: StoredAnswer, replay: boolean) {
  if (replay) reply.header('idempotent-replayed', 'true');
  return reply.status(answer.http_status).send(answer.body);
}
