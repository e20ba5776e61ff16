import type { WalletLinks } from './holder/page.ts';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './domain/clock.ts';
import { PROTOCOL_VERSIONS } from './domain/enroll.ts';
import { IssuerError } from './domain/errors.ts';
import { TicketSigner } from './domain/signing.ts';
import { EventSettingsCache } from './domain/event-settings.ts';
import { RecentKeys } from './domain/credentials.ts';
import { authHooks, scannerLogFields } from './http/auth.ts';
import { requireRouteRule } from './http/authorization.ts';
import { requireScannerScope } from './http/scanner-scopes.ts';
import { auditTrail } from './http/audit-trail.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { lazySerializers } from './http/lazy-serializers.ts';
import { lazyValidators } from './http/lazy-validators.ts';
import { configuredSecrets, secretMasker } from './http/log-masking.ts';
import { adminEtags } from './http/etag.ts';
import { addSecurityHeaders, API_SECURITY_HEADERS } from './http/security-headers.ts';
import { IssuerMetrics } from './http/operations/metrics.ts';
import type { App, AppContext } from './http/context.ts';
import { envelope, handleError } from './http/errors.ts';
import { routeMethods } from './http/method-not-allowed.ts';
import { rateLimitHooks, rateLimitOptions } from './http/rate-limit.ts';
import { RefusalDigest } from './http/refusal-digest.ts';
import { HashPool } from './domain/hash-pool.ts';
import { SharedRateLimits } from './http/rate-limit-store.ts';
import { webhookDelivery } from './webhooks/delivery.ts';
import { delivery } from './delivery/setup.ts';
import { autoExit } from './domain/auto-exit.ts';
import { registerOpenApi } from './http/openapi.ts';
import { AJV_OPTIONS, refuseLoneSurrogates } from './http/validation.ts';
import type { Store } from './store/store.ts';
import { registerRoutes } from './http/routes.ts';

export interface AppDeps {
  store: Store;
  keyEncryptionKey: Buffer;
  adminTokenHash: string;
  /** Reads the admin-token hash again (after a reset); absent, `adminTokenHash` holds for good. */
  adminTokenHashSource?: () => Promise<string>;
  clock?: Clock;
  /** Shared rate-limit counters; null keeps them in this process. */
  redis?: Redis | null;
  /** Where log lines go (stdout when absent). */
  logStream?: DestinationStream;
  /** A certificate and its private key (PEM): the issuer then serves HTTPS itself. */
  tls?: { cert: Buffer; key: Buffer } | null;
  /** Run this instance's webhook delivery worker (default true). */
  webhookWorker?: boolean;
  /** Apple Wallet's push worker: whether it runs here (default true), the APNs CA (tests), its poll. */
  applePushes?: { worker?: boolean; apnsCa?: Buffer; pollMs?: number };
  /** Google Wallet: run this instance's push worker (default true), and certificate authorities (PEM) to trust extra. */
  googleWallet?: { worker?: boolean; ca?: string; pollMs?: number };
  /** Run this instance's mail worker when SMTP_URL is set (default true). */
  mailWorker?: boolean;
  /** The wallets the holder page offers (default none). */
  wallets?: WalletLinks;
}

/** Paths pino replaces before a line is written: every place a secret could travel. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'api_key',
  'token',
  'admin_token',
  'password',
  'invite_token',
  'invite_url',
  '*.api_key',
  '*.token',
  '*.admin_token',
  '*.authorization',
  '*.password',
  '*.password_hash',
  '*.invite_token',
  '*.invite_url',
];

/** Accepts a caller's X-Request-Id when it is a sane token, so traces join up; otherwise makes one. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** `/api/vN/` with N other than 1, or an unsupported Ticket-Protocol-Version header: 400, not 404. */
async function protocolVersionGuard(request: FastifyRequest): Promise<void> {
  const pathVersion = /^\/api\/v([^/?#]*)/.exec(request.url)?.[1];
  const headerVersion = request.headers['ticket-protocol-version'];
  const asked = [pathVersion, typeof headerVersion === 'string' ? headerVersion.trim() : headerVersion];
  for (const version of asked) {
    if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(String(version))) {
      throw new IssuerError(
        'PROTOCOL_VERSION_UNSUPPORTED',
        'this issuer does not support the requested protocol version',
        {
          supported: [...PROTOCOL_VERSIONS],
        },
      );
    }
  }
}

/** Entries of the in-process rate-limit counters' LRU. */
const LIMIT_CACHE_ENTRIES = 100_000;

/** Rate-limit counters in Redis, falling back to this instance's own while Redis does not answer. */
function sharedRateLimits(app: App, redis: Redis, config: Config, metrics: IssuerMetrics): SharedRateLimits {
  return new SharedRateLimits({
    redis,
    nameSpace: `${config.redisKeyPrefix}rate:`,
    cache: LIMIT_CACHE_ENTRIES,
    onShared: (shared) => metrics.rateLimitShared(shared),
    warn: (message, error) => app.log.warn({ redis_error: error?.message }, message),
    info: (message) => app.log.info(message),
  });
}

/** Builds the issuer's HTTP application; the server and the tests both start here. */
export async function buildApp(config: Config, deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? systemClock;
  const requestTimeoutMs = config.requestTimeoutSeconds * 1000;
  const serializers = lazySerializers();
  const validators = lazyValidators();
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The scanner's key id joins the request's completion line only when that line is written: a
      // child logger per request would cost every check-in its bindings, logged or not.
      serializers: {
        res: (reply: { statusCode: number; request?: FastifyRequest }) => ({
          statusCode: reply.statusCode,
          ...(reply.request ? scannerLogFields(reply.request) : {}),
        }),
      },
      // Redaction covers known fields; this covers secrets pasted anywhere else (a URL, another header).
      hooks: { streamWrite: secretMasker(configuredSecrets(config)) },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    // A half-sent request must not hold a connection: headers and body must arrive within the timeout,
    // checked every second rather than Node's default 30.
    requestTimeout: requestTimeoutMs,
    http: { headersTimeout: requestTimeoutMs, connectionsCheckingInterval: 1000 },
    // HTTPS on the same port, with the same timeouts: phones open a camera only on a secure origin.
    ...(deps.tls
      ? {
          serverFactory: (handler: Parameters<typeof createHttpsServer>[1]) =>
            createHttpsServer(
              {
                cert: deps.tls!.cert,
                key: deps.tls!.key,
                requestTimeout: requestTimeoutMs,
                headersTimeout: requestTimeoutMs,
                connectionsCheckingInterval: 1000,
              },
              handler,
              // Fastify's types name the plain HTTP server; an HTTPS server serves it the same way.
            ) as unknown as Server,
        }
      : {}),
    clientErrorHandler,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    genReqId: requestId,
    // While closing with grace, requests on open connections are still served: Fastify's own 503
    // would answer outside the envelope, and a scanner's queued scan is better taken than refused.
    return503OnClosing: false,
    // The router rejects some URLs (bad percent-encoding, over-long ids) before any hook runs.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply.headers(API_SECURITY_HEADERS)),
    ajv: AJV_OPTIONS,
    // Serializers and validators are compiled on first use: compiling them all made the start slow,
    // and left the idle process with the memory that start grew (see lazy-validators.ts).
    schemaController: {
      compilersFactory: { buildSerializer: serializers.factory, buildValidator: validators.factory },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  serializers.attach(app);
  validators.attach(app);
  // Before any route: every /admin/v1 operation must have its rule (see authorization.ts).
  app.addHook('onRoute', requireRouteRule);
  app.addHook('onRoute', requireScannerScope);
  // Before any route too: each admin write's handler runs with its audit entry pending (see audit-trail.ts).
  app.addHook('onRoute', auditTrail(config, clock));

  const methodsOf = routeMethods(app);
  app.setErrorHandler(handleError);
  // Every body is JSON; without this, text/plain would reach the schemas as a string.
  app.removeContentTypeParser(['text/plain']);
  app.addHook('onRequest', protocolVersionGuard);
  // A POST without a body (revoke, rotate) reads as an empty object, so optional bodies stay optional.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
  });
  app.addHook('preValidation', refuseLoneSurrogates);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  addSecurityHeaders(app);
  adminEtags(app);
  const metrics = new IssuerMetrics();
  const limitMaxima = new Map<string, number>();
  const sharedLimits = deps.redis ? sharedRateLimits(app, deps.redis, config, metrics) : null;
  await app.register(rateLimit, {
    ...rateLimitOptions(config.rateLimits, limitMaxima),
    cache: LIMIT_CACHE_ENTRIES,
    // Redis failing is handled by the shared store (each instance's own counters meanwhile).
    skipOnError: false,
    ...(sharedLimits ? { store: sharedLimits.pluginStore() } : {}),
  });
  if (sharedLimits) app.addHook('onClose', async () => sharedLimits.close());
  await registerOpenApi(app, config);

  const signer = new TicketSigner(deps.store, deps.keyEncryptionKey, clock);
  await signer.ensureKey();
  const adminTokenHash = deps.adminTokenHashSource ?? (async () => deps.adminTokenHash);
  metrics.instrument(app);
  const limits = rateLimitHooks(app, config.rateLimits, limitMaxima, (limit) => metrics.limited(limit));
  const webhooks = webhookDelivery(app, {
    run: deps.webhookWorker !== false,
    store: deps.store,
    keyEncryptionKey: deps.keyEncryptionKey,
    config,
    clock,
    metrics,
  });
  autoExit(app, { store: deps.store, clock });
  const delivered = delivery(app, deps, { config, clock, metrics });
  const hashing = new HashPool(config.passwordHashConcurrency, (result) => metrics.passwordHash(result));
  const refusals = new RefusalDigest(clock);
  app.addHook('onClose', async () => {
    await refusals.flush();
    await hashing.close();
  });
  const ctx: AppContext = {
    config,
    store: deps.store,
    clock,
    signer,
    metrics,
    adminTokenHash,
    limits,
    hashing,
    refusals,
    eventSettings: new EventSettingsCache(deps.store),
    keyEncryptionKey: deps.keyEncryptionKey,
    webhooks,
    ...delivered,
    auth: authHooks(deps.store, clock, adminTokenHash, limits.authFailuresPerIp, new RecentKeys()),
  };
  app.decorateRequest('scannerKey', null);
  app.decorateRequest('principal', null);

  await registerRoutes(app, ctx, metrics, deps.redis ? () => deps.redis!.ping() : null);

  app.setNotFoundHandler({ preHandler: ctx.limits.unknownRoutePerIp }, async (request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = methodsOf(request.url);
    // A route that answers this method but found nothing (a static file that does not exist) is a 404.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send(
          envelope('INVALID_REQUEST', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`, {
            allow: allowed,
          }),
        );
    }
    return reply.status(404).send(envelope('NOT_FOUND', `no route ${request.method} ${path}`));
  });
  return app;
}
