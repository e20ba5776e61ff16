import { CHECK_IN_OUTCOMES } from '@ticket-issuer/protocol';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The metrics of CONTRACT.md ("Operations"), in a registry of this app's own (each instance counts its own). */
export class IssuerMetrics {
  readonly registry = new Registry();
  private readonly checkIns = new Counter({
    name: 'issuer_check_ins_total',
    help: 'Check-ins processed, by outcome (replays not counted)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly replays = new Counter({
    name: 'issuer_idempotent_replays_total',
    help: 'Check-ins answered again from their idempotency key',
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'issuer_rate_limited_total',
    help: 'Requests refused with 429, by limit',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'issuer_http_request_duration_seconds',
    help: 'Time to answer a request, by route pattern',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly limitsShared = new Gauge({
    name: 'issuer_rate_limit_shared',
    help: 'Whether rate limits are counted in Redis, shared by every instance (1), or by this instance alone (0)',
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'issuer_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this instance, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private readonly passwordHashes = new Counter({
    name: 'issuer_password_hashes_total',
    help: 'Password hashes asked of this instance, by result: hashed, or refused (503) while every hash thread was busy',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  private pendingSource: (() => Promise<number>) | null = null;

  constructor() {
    const pending = () => this.pendingSource;
    new Gauge({
      name: 'issuer_webhook_pending',
      help: 'Webhook messages waiting for delivery (every instance sees the same outbox)',
      registers: [this.registry],
      async collect() {
        const source = pending();
        if (source) this.set(await source().catch(() => 0));
      },
    });
    for (const result of ['delivered', 'failed']) this.webhookAttempts.labels(result).inc(0);
    for (const result of ['hashed', 'busy']) this.passwordHashes.labels(result).inc(0);
    collectDefaultMetrics({ register: this.registry });
    // Every outcome is shown from the start, at zero, so that a rate() over it is defined before the first scan.
    for (const outcome of CHECK_IN_OUTCOMES) this.checkIns.labels(outcome).inc(0);
    this.replays.inc(0);
  }

  /** Counts one answered check-in: a replay, or a processed attempt with one of the spec's outcomes. */
  checkIn(outcome: unknown, replay: boolean): void {
    if (replay) this.replays.inc();
    else if ((CHECK_IN_OUTCOMES as readonly unknown[]).includes(outcome)) this.checkIns.labels(String(outcome)).inc();
  }

  /** Counts one webhook delivery attempt. */
  webhookAttempt(delivered: boolean): void {
    this.webhookAttempts.labels(delivered ? 'delivered' : 'failed').inc();
  }

  /** Counts one password hash asked for: made, or refused because every hash thread was busy. */
  passwordHash(result: 'hashed' | 'busy'): void {
    this.passwordHashes.labels(result).inc();
  }

  /** Where the pending-messages gauge reads its value when scraped. */
  webhookPending(source: () => Promise<number>): void {
    this.pendingSource = source;
  }

  /** Says where rate limits are counted now: in Redis (shared) or in this instance. */
  rateLimitShared(shared: boolean): void {
    this.limitsShared.set(shared ? 1 : 0);
  }

  /** Counts a request refused by the named limit. */
  limited(endpoint: string): void {
    this.rateLimited.labels(endpoint).inc();
  }

  /** Times every request by its route pattern (never the raw URL: ids would explode the label set). */
  instrument(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.durations.labels(request.method, route, String(reply.statusCode)).observe(reply.elapsedTime / 1000);
    });
  }
}
