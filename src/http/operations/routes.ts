import { Type } from '@sinclair/typebox';
import { IssuerError } from '../../domain/errors.ts';
import { bearerToken } from '../auth.ts';
import { matchesHash } from '../../domain/credentials.ts';
import { hashSecret } from '../../domain/ids.ts';
import type { App, AppContext } from '../context.ts';
import { errors, json, media, NoAuth } from '../schemas/common.ts';
import type { IssuerMetrics } from './metrics.ts';

/** How long a readiness check may take before the part counts as failing. */
const CHECK_TIMEOUT_MS = 2_000;

type CheckResult = 'ok' | 'error' | 'not_configured';

async function check(probe: (() => Promise<unknown>) | null): Promise<CheckResult> {
  if (probe === null) return 'not_configured';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
}

const ops = { tags: ['operations'] };

/** /healthz, /readyz and /metrics (CONTRACT.md, "Operations"). */
export function operationsRoutes(
  app: App,
  ctx: AppContext,
  metrics: IssuerMetrics,
  redisPing: (() => Promise<unknown>) | null,
): void {
  app.get(
    '/healthz',
    {
      schema: {
        ...ops,
        operationId: 'getLiveness',
        summary: 'Liveness: the process serves',
        security: NoAuth,
        response: { 200: json('The process serves', Type.Object({ status: Type.Literal('ok') })), ...errors(400) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        ...ops,
        operationId: 'getReadiness',
        summary: 'Readiness: the store answers (Redis down only degrades the rate limits)',
        description:
          'Answers 503 only when the store cannot be used. Redis unreachable is no reason to take the instance ' +
          'out of a load balancer: it serves with its own rate-limit counters, and `checks.redis` reads `degraded`.',
        security: NoAuth,
        response: {
          200: json(
            'Ready: the store answers; `redis` is `degraded` while Redis does not (limits per instance meanwhile)',
            Type.Object({
              status: Type.Literal('ready'),
              checks: Type.Object({
                store: Type.Literal('ok'),
                redis: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('not_configured')]),
              }),
            }),
          ),
          ...errors(400, 503),
        },
      },
    },
    async () => {
      const [store, redis] = await Promise.all([check(() => ctx.store.ping()), check(redisPing)]);
      const checks = { store, redis: redis === 'error' ? ('degraded' as const) : redis };
      if (store !== 'ok') {
        throw new IssuerError('UNAVAILABLE', 'the issuer cannot serve: its store does not answer', { checks });
      }
      return { status: 'ready' as const, checks: { ...checks, store } };
    },
  );

  // The metrics token, or the admin token when none is set; hashed once, compared in constant time.
  const metricsTokenHash = ctx.config.metricsToken === null ? null : hashSecret(ctx.config.metricsToken);
  app.get(
    '/metrics',
    {
      schema: {
        ...ops,
        operationId: 'getMetrics',
        summary: 'Prometheus metrics of this instance',
        security: [{ MetricsToken: [] as string[] }],
        response: {
          200: media('The metrics, in the Prometheus text format', ['text/plain'], Type.String()),
          ...errors(400, 401, 429, 500),
        },
      },
      onRequest: async (request, reply) => {
        const presented = bearerToken(request) ?? '';
        const expected = metricsTokenHash ?? (await ctx.adminTokenHash());
        if (!matchesHash(presented, expected)) {
          await ctx.limits.authFailuresPerIp.call(app, request, reply);
          throw new IssuerError(
            'UNAUTHORIZED',
            'a valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)',
          );
        }
      },
    },
    async (_request, reply) => {
      const text = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(text as never);
    },
  );
}
