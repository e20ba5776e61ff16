import type { FastifyRequest } from 'fastify';
import { IssuerError } from '../../domain/errors.ts';
import { requireEvent } from '../../domain/events.ts';
import { gateView } from '../../domain/gates.ts';
import { scannerRules } from '../../domain/ticket-types.ts';
import { toStored, toWire } from '../../domain/time.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { scannerGatesSchema } from '../schemas/gates.ts';
import { rulesAnswerSchema } from '../schemas/scanner-rules.ts';

/** The event of the path, which must be the scanner key's own (another event's key: 403). */
function keyEventOf(request: FastifyRequest, eid: string): string {
  const key = scannerKeyOf(request);
  if (eid !== key.eid) throw new IssuerError('FORBIDDEN', 'this API key is not valid for this event');
  return key.eid;
}

/** What a scanner syncs to judge entries and undos offline: the gates (since the third release), and all the rules. */
export function eventRuleRoutes(app: App, ctx: AppContext): void {
  const scanner = { onRequest: [ctx.limits.changesPerKey, ctx.auth.scanner] };

  app.get('/api/v1/events/:eid/gates', { schema: scannerGatesSchema, ...scanner }, async (request) => {
    const eid = keyEventOf(request, request.params.eid);
    const [event, gates] = await Promise.all([requireEvent(ctx.store, eid), ctx.store.listGates(eid)]);
    return { gates: gates.map(gateView), reentry: event.reentry };
  });

  // With the event's rules, the issuer's undo window (devices judge an offline undo by it) and its clock.
  app.get('/api/v1/events/:eid/rules', { schema: rulesAnswerSchema, ...scanner }, async (request) => ({
    ...(await scannerRules(ctx.store, keyEventOf(request, request.params.eid))),
    annul_window_s: ctx.config.annulWindowSeconds,
    server_time: toWire(toStored(ctx.clock.now())),
  }));
}
