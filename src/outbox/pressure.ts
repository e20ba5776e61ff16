/**
 * Whether the gates keep this instance busy: several scanners' requests under way at once, or recent
 * ones while the event loop was over 80 % busy. The outboxes then give way (see OutboxWorker): a scan
 * at a gate matters more than a message to a CRM or an email, which a quieter moment sends.
 */
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';

const RECENT_MS = 100;
const BUSY_SHARE = 0.8;
/** Scanners' requests under way at once that make the instance busy (a rush, or queues syncing). */
const BUSY_REQUESTS = 4;

export class RequestPressure {
  private readonly underWay = new Set<string>();
  private lastRequestAt = -Infinity;
  private sample: EventLoopUtilization = performance.eventLoopUtilization();
  private sampledAt = performance.now();
  private loopBusy = false;

  /** A scanner's request arrived. */
  started(id: string): void {
    this.underWay.add(id);
    this.lastRequestAt = performance.now();
  }

  /** It was answered, or its client went away (either may come; both may). */
  ended(id: string): void {
    this.underWay.delete(id);
  }

  busy(): boolean {
    if (this.underWay.size >= BUSY_REQUESTS) return true;
    const now = performance.now();
    if (now - this.lastRequestAt > RECENT_MS) return false;
    if (now - this.sampledAt >= RECENT_MS) {
      const next = performance.eventLoopUtilization();
      this.loopBusy = performance.eventLoopUtilization(next, this.sample).utilization > BUSY_SHARE;
      this.sample = next;
      this.sampledAt = now;
    }
    return this.loopBusy;
  }
}

/** The pressure of the scanners' requests (`/api/`) on this app, followed by its hooks. */
export function requestPressure(app: FastifyInstance): RequestPressure {
  const pressure = new RequestPressure();
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/')) pressure.started(request.id);
  });
  app.addHook('onResponse', async (request) => pressure.ended(request.id));
  app.addHook('onRequestAbort', async (request) => pressure.ended(request.id));
  return pressure;
}
