import type {
  ClaimDeliveries,
  ClaimedDelivery,
  DeliveryCounts,
  DeliveryRecord,
  DeliveryResult,
  DeliveryStatus,
  DeliverySummary,
  QueueAnswer,
  QueueDeliveries,
} from './delivery-records.ts';
import type { Page } from './records.ts';

/**
 * The mail outbox: one row per ticket whose email was asked for, queued until an attempt sends it or
 * fails it for good. Every method is one transaction; each says what it guarantees.
 */
export interface DeliveryStore {
  /**
   * Queues one email per ticket of the event that has an email and is not revoked (the asked `tids`, or
   * all): those never queued and those failed; with `resend`, those sent too. A ticket still queued is
   * left as it is (never queued twice). Any asked tid the event does not hold: nothing is queued.
   */
  queueDeliveries(request: QueueDeliveries): Promise<QueueAnswer>;
  /**
   * Takes due queued deliveries, each under a lease of its own (a fresh token; on PostgreSQL rows taken
   * with SKIP LOCKED and timed by the database's clock): no two workers attempt one at the same moment.
   */
  claimDeliveries(request: ClaimDeliveries): Promise<ClaimedDelivery[]>;
  /** Records attempts' ends, each only while its claim's token still holds, in one transaction. */
  finishDeliveries(results: DeliveryResult[]): Promise<void>;
  /** The event's deliveries in tid order, of one status or all, a page at a time (cursor: the last tid). */
  listDeliveries(
    eid: string,
    status: DeliveryStatus | null,
    limit: number,
    after: string | null,
  ): Promise<Page<DeliveryRecord>>;
  /** The deliveries of these tickets, by tid (a ticket never queued is absent). */
  deliverySummaries(tids: string[]): Promise<Map<string, DeliverySummary>>;
  /** The event's emails in numbers (see DeliveryCounts), read in one statement. */
  countDeliveries(eid: string): Promise<DeliveryCounts>;
  /** How many emails wait to be sent (the gauge). */
  countQueuedDeliveries(): Promise<number>;
}
