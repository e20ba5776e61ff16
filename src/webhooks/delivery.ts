/**
 * This instance's webhook delivery, wired into the app: the outbox worker with the webhook sender
 * (whose purge is the outbox's upkeep) starts when the app is ready, stops (letting the attempts under
 * way end) when it closes, and gives way while scanners' requests keep the instance busy. The
 * pending-messages gauge reads the outbox whether or not a worker runs here.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { IssuerMetrics } from '../http/operations/metrics.ts';
import { requestPressure } from '../outbox/pressure.ts';
import { OutboxWorker } from '../outbox/worker.ts';
import type { Store } from '../store/store.ts';
import { WebhookSender } from './sender.ts';

/** How often the upkeep looks again when its last step left nothing over (ms). */
const UPKEEP_IDLE_MS = 2000;

/** What the routes see of webhook delivery: a way to have due messages looked at now. */
export interface WebhookWaker {
  wake(): void;
}

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
): WebhookWaker | null {
  const { store, metrics } = options;
  metrics.webhookPending(() => store.webhooks.countPendingWebhookMessages());
  if (!options.run) return null;
  const pressure = requestPressure(app);
  const log = app.log.child({ component: 'webhooks' });
  const sender = new WebhookSender({
    store,
    keyEncryptionKey: options.keyEncryptionKey,
    settings: options.config.webhooks,
    clock: options.clock,
    log,
    onAttempt: (delivered) => metrics.webhookAttempt(delivered),
  });
  // No bound on the attempts in all but the claims': at most 32 in flight to one endpoint, so a slow
  // receiver holds a few sockets. While the gates keep the instance busy: 4 per endpoint, claims of at
  // most 8, one every 50 ms (about 160 messages a second, a few per cent of a core).
  const worker = new OutboxWorker(sender, {
    log,
    pollMs: 250,
    limits: { concurrency: Infinity, claimLimit: 200, perGroup: 32 },
    busyLimits: { claimLimit: 8, perGroup: 4 },
    busy: () => pressure.busy(),
    purgeEveryMs: UPKEEP_IDLE_MS,
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => {
    await worker.stop();
    sender.close();
  });
  return worker;
}
