import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authorizeAdminScope } from './authorization.ts';
import { adminAuditRoutes } from './routes/admin/audit.ts';
import { registerConsole } from './console.ts';
import { registerScanner } from './scan.ts';
import { operationsRoutes } from './operations/routes.ts';
import { adminEventRoutes } from './routes/admin/events.ts';
import { adminTicketTypeRoutes } from './routes/admin/ticket-types.ts';
import { adminScanRoutes } from './routes/admin/scans.ts';
import { adminRecentScanRoutes } from './routes/admin/recent-scans.ts';
import { adminScannerRoutes } from './routes/admin/scanners.ts';
import { adminSigningKeyRoutes } from './routes/admin/signing-keys.ts';
import { adminWebhookRoutes } from './routes/admin/webhooks.ts';
import { adminDeliveryRoutes } from './routes/admin/deliveries.ts';
import { adminTicketRoutes } from './routes/admin/tickets.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { eventRuleRoutes } from './routes/event-rules.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { scannerRoutes } from './routes/scanners.ts';
import { scanUploadRoutes } from './routes/scans.ts';
import { adminAnnulRoutes, annulRoutes } from './routes/annul.ts';
import { ticketFinderRoutes } from './routes/ticket-finder.ts';
import { groupRoutes } from './routes/groups.ts';
import { ticketRoutes } from './routes/tickets.ts';
import { holderRoutes } from './routes/holder.ts';
import { adminUserRoutes } from './routes/admin/users.ts';
import { adminApiTokenRoutes } from './routes/admin/api-tokens.ts';
import { invitationRoutes } from './routes/invitations.ts';
import { ssoRoutes } from './routes/sso.ts';
import type { IssuerMetrics } from './operations/metrics.ts';
import { appleWalletRoutes } from './routes/apple-wallet.ts';
import type { App, AppContext } from './context.ts';

/**
 * Every route of the issuer, in the order they are registered: the console and single sign-on, the
 * web scanner, discovery, operations and the API reference, the scanners' API, the public invitation
 * route, the holders' pages, and the admin API in a scope of its own (its rate limit, authentication and authorization
 * for every route in it).
 */
export async function registerRoutes(
  app: App,
  ctx: AppContext,
  metrics: IssuerMetrics,
  pingRedis: (() => Promise<unknown>) | null,
): Promise<void> {
  await registerConsole(app, ctx);
  ssoRoutes(app, ctx);
  await registerScanner(app);
  discoveryRoutes(app, ctx);
  operationsRoutes(app, ctx, metrics, pingRedis);
  await openApiRoutes(app, ctx.config.baseUrl);
  scannerRoutes(app, ctx);
  ticketRoutes(app, ctx);
  eventRuleRoutes(app, ctx);
  scanUploadRoutes(app, ctx);
  annulRoutes(app, ctx);
  ticketFinderRoutes(app, ctx);
  groupRoutes(app, ctx);
  invitationRoutes(app, ctx);
  if (ctx.appleWallet !== null) appleWalletRoutes(app, ctx, ctx.appleWallet);
  holderRoutes(app, ctx);
  await app.register(async (scope) => {
    const admin = scope.withTypeProvider<TypeBoxTypeProvider>();
    admin.addHook('onRequest', ctx.limits.adminPerToken);
    admin.addHook('onRequest', ctx.auth.admin);
    authorizeAdminScope(admin, ctx.store);
    adminEventRoutes(admin, ctx);
    adminTicketTypeRoutes(admin, ctx);
    adminTicketRoutes(admin, ctx);
    adminScannerRoutes(admin, ctx);
    adminScanRoutes(admin, ctx);
    adminRecentScanRoutes(admin, ctx);
    adminSigningKeyRoutes(admin, ctx);
    adminWebhookRoutes(admin, ctx);
    adminDeliveryRoutes(admin, ctx);
    adminUserRoutes(admin, ctx);
    adminApiTokenRoutes(admin, ctx);
    adminAnnulRoutes(admin, ctx);
    adminAuditRoutes(admin, ctx);
  });
}
