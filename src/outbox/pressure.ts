/**
 * Whether the gates keep this instance busy: several scanners' requests under way at once, or recent
 * ones while the event loop was over 80 % busy. Delivery then gives way (see WebhookWorker): a scan at
 * a gate matters more than a message to a CRM, which a quieter moment delivers.
 */
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

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
