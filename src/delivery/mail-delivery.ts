/**
 * This instance's mail delivery, wired into the app: with SMTP_URL set, the outbox worker with the
 * mail sender starts when the app is ready and stops (letting the sends under way end) when it closes,
 * and gives way while scanners' requests keep the instance busy (one send at a time, the emails
 * spaced: `mail-pace.ts`). Each email is drawn, built and sent on the mail's own thread (`mail-transport.ts`).
 * The queued-mail gauge reads the outbox whether or not mail is set.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { IssuerMetrics } from '../http/operations/metrics.ts';
import { requestPressure } from '../outbox/pressure.ts';
import { OutboxWorker } from '../outbox/worker.ts';
import type { Store } from '../store/store.ts';
import { mailMetrics } from './mail-metrics.ts';
import { pacedWhileBusy } from './mail-pace.ts';
import { MailTransport } from './mail-transport.ts';
import { MailSender, type MailSource } from './mail-worker.ts';

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
  const pressure = requestPressure(app);
  // How long one send may take in all (the transport's bound; the lease outlives it).
  const sendTimeoutMs = settings.sendTimeoutSeconds * 1000;
  const transport = new MailTransport({ smtpUrl: settings.smtpUrl, sendTimeoutMs });
  const log = app.log.child({ component: 'mail' });
  const sender = new MailSender({
    store,
    send: (mail, startBy) => transport.send(mail, startBy),
    compose: pacedWhileBusy(options.compose, { busy: () => pressure.busy() }),
    retrySchedule: settings.retrySchedule,
    sendTimeoutMs,
    clock: options.clock,
    log,
    onAttempt: counted,
  });
  // Four sends at once, one while scanners keep the instance busy.
  const worker = new OutboxWorker(sender, {
    log,
    pollMs: options.pollMs ?? 500,
    limits: { concurrency: 4, claimLimit: 4, perGroup: Infinity },
    busyLimits: { concurrency: 1 },
    busy: () => pressure.busy(),
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => {
    await worker.stop();
    await transport.close();
  });
  return { configured: true, wake: () => worker.wake() };
}
