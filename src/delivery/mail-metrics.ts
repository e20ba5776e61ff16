/** The mail outbox's metrics, beside the webhooks' in the app's registry. */
import { Counter, Gauge, type Registry } from 'prom-client';

export type MailAttemptResult = 'sent' | 'temporary' | 'failed';

/**
 * `issuer_mail_attempts_total{result="sent"|"temporary"|"failed"}` (this instance's attempts) and
 * `issuer_mail_queued` (emails waiting, read from the outbox when scraped); answers the counter's inc.
 */
export function mailMetrics(registry: Registry, queued: () => Promise<number>): (result: MailAttemptResult) => void {
  const attempts = new Counter({
    name: 'issuer_mail_attempts_total',
    help: 'Mail send attempts made by this instance, by result: sent, temporary (retried later) or failed',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'issuer_mail_queued',
    help: 'Ticket emails waiting to be sent (every instance sees the same outbox)',
    registers: [registry],
    async collect() {
      this.set(await queued().catch(() => 0));
    },
  });
  for (const result of ['sent', 'temporary', 'failed']) attempts.labels(result).inc(0);
  return (result) => attempts.labels(result).inc();
}
