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
} from '../delivery-records.ts';
import type { DeliveryStore } from '../delivery-store.ts';
import type { Page } from '../store.ts';
import type pg from 'pg';
import type { Tx } from './queries.ts';
import * as deliveries from './deliveries.ts';

/** The mail outbox. (PostgreSQL: see ../delivery-store.ts.) */
export class PostgresDeliveryStore implements DeliveryStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  queueDeliveries(request: QueueDeliveries): Promise<QueueAnswer> {
    return deliveries.queue(this.b.tx, request);
  }

  claimDeliveries(request: ClaimDeliveries): Promise<ClaimedDelivery[]> {
    return deliveries.claim(this.b.pool, request);
  }

  finishDeliveries(results: DeliveryResult[]): Promise<void> {
    return deliveries.finish(this.b.pool, results);
  }

  listDeliveries(
    eid: string,
    status: DeliveryStatus | null,
    limit: number,
    after: string | null,
  ): Promise<Page<DeliveryRecord>> {
    return deliveries.list(this.b.pool, eid, status, limit, after);
  }

  deliverySummaries(tids: string[]): Promise<Map<string, DeliverySummary>> {
    return deliveries.summaries(this.b.pool, tids);
  }

  countDeliveries(eid: string): Promise<DeliveryCounts> {
    return deliveries.counts(this.b.pool, eid);
  }

  countQueuedDeliveries(): Promise<number> {
    return deliveries.queuedCount(this.b.pool);
  }
}
