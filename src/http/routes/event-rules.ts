import { requireEvent } from '../../domain/events.ts';
import { gateView } from '../../domain/gates.ts';
import { scannerRules } from '../../domain/ticket-types.ts';
import { toStored, toWire } from '../../domain/time.ts';
import { scannerKeyOf } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { scannerGatesSchema } from '../schemas/gates.ts';
import { rulesAnswerSchema } from '../schemas/scanner-rules.ts';

/** What a scanner syncs (of its own event: the routes' scope, see scanner-scopes.ts) to judge entries and undos offline: the gates (since the third release), and all the rules. */
export function eventRuleRoutes(app: App, ctx: AppContext): void {
  const scanner = { onRequest: [ctx.limits.changesPerKey, ctx.auth.scanner] };

  app.get('/api/v1/events/:eid/gates', { schema: scannerGatesSchema, ...scanner }, async (request) => {
    const eid = scannerKeyOf(request).eid;
    const [event, gates] = await Promise.all([requireEvent(ctx.store, eid), ctx.store.events.listGates(eid)]);
    return { gates: gates.map(gateView), reentry: event.reentry };
  });

  // With the event's rules, the issuer's undo window (devices judge an offline undo by it) and its clock.
  app.get('/api/v1/events/:eid/rules', { schema: rulesAnswerSchema, ...scanner }, async (request) => ({
    ...(await scannerRules(ctx.store, scannerKeyOf(request).eid)),
    annul_window_s: ctx.config.annulWindowSeconds,
    server_time: toWire(toStored(ctx.clock.now())),
  }));
}
