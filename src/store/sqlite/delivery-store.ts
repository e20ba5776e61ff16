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
import type { SqliteContext } from './context.ts';
import type { GroupCommit } from './group-commit.ts';
import * as deliveries from './deliveries.ts';

/**
 * The mail outbox. (SQLite: see ../delivery-store.ts.) Claims and the ends of attempts are units of
 * the check-ins' group commit (see deliveries.ts): they share its commit and its fsync.
 */
export class SqliteDeliveryStore implements DeliveryStore {
  constructor(private readonly b: { ctx: SqliteContext; groupCommit: GroupCommit }) {}

  queueDeliveries(request: QueueDeliveries): Promise<QueueAnswer> {
    return deliveries.queue(this.b.ctx, request);
  }

  claimDeliveries(request: ClaimDeliveries): Promise<ClaimedDelivery[]> {
    return deliveries.claim(this.b.ctx, this.b.groupCommit, request);
  }

  finishDeliveries(results: DeliveryResult[]): Promise<void> {
    return deliveries.finish(this.b.ctx, this.b.groupCommit, results);
  }

  listDeliveries(
    eid: string,
    status: DeliveryStatus | null,
    limit: number,
    after: string | null,
  ): Promise<Page<DeliveryRecord>> {
    return deliveries.list(this.b.ctx, eid, status, limit, after);
  }

  deliverySummaries(tids: string[]): Promise<Map<string, DeliverySummary>> {
    return deliveries.summaries(this.b.ctx, tids);
  }

  countDeliveries(eid: string): Promise<DeliveryCounts> {
    return deliveries.counts(this.b.ctx, eid);
  }

  countQueuedDeliveries(): Promise<number> {
    return deliveries.queuedCount(this.b.ctx);
  }
}
