/**
 * This instance's mail delivery, wired into the app: with SMTP_URL set, the worker starts when the app
 * is ready and stops (letting the sends under way end) when it closes, and gives way while scanners'
 * requests keep the instance busy (one send at a time, the emails spaced: `mail-pace.ts`). The
 * queued-mail gauge reads the outbox whether or not mail is set.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { IssuerMetrics } from '../http/operations/metrics.ts';
import type { Store } from '../store/store.ts';
import { RequestPressure } from '../webhooks/pressure.ts';
import { mailMetrics } from './mail-metrics.ts';
import { pacedWhileBusy } from './mail-pace.ts';
import { MailTransport } from './mail-transport.ts';
import { type MailSource, MailWorker } from './mail-worker.ts';

/** What the routes see of mail: whether it is configured, and a way to have queued mail looked at now. */
export interface MailDelivery {
  configured: boolean;
  /** Looks for due mail now (no-op where no worker runs). */
  wake(): void;
}

export function mailDelivery(
  app: FastifyInstance,
  options: {
    run: boolean;
    store: Store;
    config: Config;
    clock: Clock;
    metrics: IssuerMetrics;
    compose: MailSource;
    /** Milliseconds between looks for due mail (tests shorten it). */
    pollMs?: number;
  },
): MailDelivery {
  const { store, config } = options;
  const counted = mailMetrics(options.metrics.registry, () => store.deliveries.countQueuedDeliveries());
  const settings = config.mail;
  if (settings === null || !options.run) return { configured: settings !== null, wake: () => undefined };
  const pressure = new RequestPressure();
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/')) pressure.started(request.id);
  });
  app.addHook('onResponse', async (request) => pressure.ended(request.id));
  app.addHook('onRequestAbort', async (request) => pressure.ended(request.id));
  // How long one send may take in all (the transport's bound; the lease outlives it).
  const sendTimeoutMs = settings.sendTimeoutSeconds * 1000;
  const transport = new MailTransport({ smtpUrl: settings.smtpUrl, sendTimeoutMs });
  const worker = new MailWorker({
    store,
    send: (message) => transport.send(message),
    compose: pacedWhileBusy(options.compose, { busy: () => pressure.busy() }),
    retrySchedule: settings.retrySchedule,
    sendTimeoutMs,
    clock: options.clock,
    log: app.log.child({ component: 'mail' }),
    onAttempt: counted,
    busy: () => pressure.busy(),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => {
    await worker.stop();
    transport.close();
  });
  return { configured: true, wake: () => worker.wake() };
}
