import {
  createWebhook,
  deliveryView,
  redeliverMessage,
  requireWebhook,
  rotateWebhookSecret,
  sendTestMessage,
  updateWebhook,
  webhookView,
} from '../../../domain/webhooks.ts';
import { IssuerError } from '../../../domain/errors.ts';
import { isRetriable } from '../../../store/webhook-records.ts';
import type { App, AppContext } from '../../context.ts';
import { handleError } from '../../errors.ts';
import {
  createWebhookSchema,
  deleteWebhookSchema,
  getWebhookSchema,
  listDeliveriesSchema,
  listWebhooksSchema,
  redeliverSchema,
  rotateWebhookSecretSchema,
  testWebhookSchema,
  updateWebhookSchema,
} from '../../schemas/webhooks.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';

/**
 * A transaction PostgreSQL still ended in a deadlock after the store's retries (another writer of the
 * endpoint held what it needed) is a busy store: 503 with Retry-After, never 500.
 */
const busyIsUnavailable = {
  errorHandler: (error: Error, request: Parameters<typeof handleError>[1], reply: Parameters<typeof handleError>[2]) =>
    handleError(
      isRetriable(error)
        ? new IssuerError('UNAVAILABLE', 'the store is busy with this endpoint; retry shortly')
        : error,
      request,
      reply,
    ),
};

/** Webhook endpoints (the contract's "Webhooks"): endpoints, secrets, test messages, deliveries. */
export function adminWebhookRoutes(app: App, ctx: AppContext): void {
  const kek = ctx.keyEncryptionKey;
  const settings = ctx.config.webhooks;

  app.post('/admin/v1/webhooks', { schema: createWebhookSchema, ...busyIsUnavailable }, async (request, reply) => {
    const { webhook, secret } = await createWebhook(ctx.store, ctx.clock, kek, settings, request.body);
    request.log.info({ webhook_id: webhook.webhook_id, event_types: webhook.event_types }, 'webhook endpoint created');
    return reply.status(201).send({ ...webhookView(webhook), secret });
  });

  app.get('/admin/v1/webhooks', { schema: listWebhooksSchema, ...busyIsUnavailable }, async (request) => {
    const { limit, cursor } = pageParams(request.query, CURSOR.webhook);
    const page = await ctx.store.webhooks.listWebhooks(limit, cursor);
    return pageAnswer('webhooks', page.items.map(webhookView), page.next_cursor);
  });

  app.get('/admin/v1/webhooks/:webhook_id', { schema: getWebhookSchema, ...busyIsUnavailable }, async (request) =>
    webhookView(await requireWebhook(ctx.store, request.params.webhook_id)),
  );

  app.patch(
    '/admin/v1/webhooks/:webhook_id',
    { schema: updateWebhookSchema, ...busyIsUnavailable },
    async (request) => {
      const webhook = await updateWebhook(ctx.store, settings, request.params.webhook_id, request.body);
      request.log.info({ webhook_id: webhook.webhook_id, enabled: webhook.enabled }, 'webhook endpoint changed');
      return webhookView(webhook);
    },
  );

  app.delete(
    '/admin/v1/webhooks/:webhook_id',
    { schema: deleteWebhookSchema, ...busyIsUnavailable },
    async (request, reply) => {
      if (!(await ctx.store.webhooks.deleteWebhook(request.params.webhook_id))) {
        throw new IssuerError('NOT_FOUND', 'no webhook endpoint has this webhook_id');
      }
      request.log.info({ webhook_id: request.params.webhook_id }, 'webhook endpoint deleted');
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/v1/webhooks/:webhook_id/rotate-secret',
    { schema: rotateWebhookSecretSchema, ...busyIsUnavailable },
    async (request) => {
      const answer = await rotateWebhookSecret(ctx.store, ctx.clock, kek, request.params.webhook_id);
      request.log.info({ webhook_id: request.params.webhook_id }, 'webhook secret rotated');
      return answer;
    },
  );

  app.post(
    '/admin/v1/webhooks/:webhook_id/test',
    { schema: testWebhookSchema, ...busyIsUnavailable },
    async (request, reply) => {
      const answer = await sendTestMessage(ctx.store, ctx.clock, request.params.webhook_id);
      ctx.webhooks?.wake();
      return reply.status(202).send(answer);
    },
  );

  app.get(
    '/admin/v1/webhooks/:webhook_id/deliveries',
    { schema: listDeliveriesSchema, ...busyIsUnavailable },
    async (request) => {
      const webhook = await requireWebhook(ctx.store, request.params.webhook_id);
      const { limit, cursor } = pageParams(request.query, CURSOR.scan);
      const page = await ctx.store.webhooks.listWebhookDeliveries(
        webhook.webhook_id,
        limit,
        cursor === null ? null : Number(cursor),
      );
      return pageAnswer('deliveries', page.items.map(deliveryView), page.next_cursor);
    },
  );

  app.post(
    '/admin/v1/webhooks/:webhook_id/deliveries/:message_id/redeliver',
    { schema: redeliverSchema, ...busyIsUnavailable },
    async (request, reply) => {
      const { webhook_id, message_id } = request.params;
      await redeliverMessage(ctx.store, ctx.clock, webhook_id, message_id);
      request.log.info({ webhook_id, message_id }, 'webhook message to be delivered again');
      ctx.webhooks?.wake();
      return reply.status(202).send(null);
    },
  );
}
