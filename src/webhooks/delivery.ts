/**
 * This instance's webhook delivery, wired into the app: the worker and the outbox's upkeep start when
 * the app is ready and stop (letting their work under way end) when it closes, and give way while
 * scanners' requests keep the instance busy. The pending-messages gauge reads the outbox whether or
 * not a worker runs here.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { IssuerMetrics } from '../http/operations/metrics.ts';
import type { Store } from '../store/store.ts';
import { RequestPressure } from './pressure.ts';
import { OutboxUpkeep } from './upkeep.ts';
import { WebhookWorker } from './worker.ts';

export function webhookDelivery(
  app: FastifyInstance,
  options: {
    run: boolean;
    store: Store;
    keyEncryptionKey: Buffer;
    config: Config;
    clock: Clock;
    metrics: IssuerMetrics;
  },
): WebhookWorker | null {
  const { store, metrics } = options;
  metrics.webhookPending(() => store.webhooks.countPendingWebhookMessages());
  if (!options.run) return null;
  const pressure = new RequestPressure();
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/')) pressure.started(request.id);
  });
  app.addHook('onResponse', async (request) => pressure.ended(request.id));
  app.addHook('onRequestAbort', async (request) => pressure.ended(request.id));
  const worker = new WebhookWorker({
    busy: () => pressure.busy(),
    store,
    keyEncryptionKey: options.keyEncryptionKey,
    settings: options.config.webhooks,
    clock: options.clock,
    log: app.log.child({ component: 'webhooks' }),
    onAttempt: (delivered) => metrics.webhookAttempt(delivered),
  });
  const upkeep = new OutboxUpkeep({
    store,
    clock: options.clock,
    retentionDays: options.config.webhooks.retentionDays,
    log: app.log.child({ component: 'webhooks' }),
    busy: () => pressure.busy(),
  });
  app.addHook('onReady', async () => {
    worker.start();
    upkeep.start();
  });
  app.addHook('onClose', async () => {
    await upkeep.stop();
    await worker.stop();
  });
  return worker;
}
