/** Sending tickets to their holders by email: which tickets are queued, and the deliveries' answers. */
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import { requireEvent } from './events.ts';
import { toStored, toWire } from './time.ts';
import type { DeliveryRecord, DeliveryStatus, DeliverySummary } from '../store/delivery-records.ts';
import type { Store } from '../store/store.ts';

/** Queues the emails of the event's tickets (`tids` null: all); answers how many were queued. */
export async function queueTicketEmails(
  store: Store,
  clock: Clock,
  mailConfigured: boolean,
  eid: string,
  request: { tids: string[] | null; resend?: boolean },
): Promise<{ queued: number }> {
  await requireEvent(store, eid);
  if (!mailConfigured) {
    throw new IssuerError('CONFLICT', 'mail is not configured on this issuer: set SMTP_URL and MAIL_FROM', {
      reason: 'mail_not_configured',
    });
  }
  const answer = await store.deliveries.queueDeliveries({
    eid,
    tids: request.tids,
    resend: request.resend ?? false,
    now: toStored(clock.now()),
  });
  if (answer.unknown.length > 0) {
    throw new IssuerError('NOT_FOUND', `no ticket of this event has tid ${answer.unknown[0]}`, {
      tids: answer.unknown.slice(0, 100),
    });
  }
  return { queued: answer.queued };
}

/** A delivery as the admin API shows it. */
export function deliveryView(delivery: DeliveryRecord) {
  return {
    tid: delivery.tid,
    email: delivery.email,
    status: delivery.status,
    attempts: delivery.attempts,
    last_error: delivery.last_error,
    sent_at: toWire(delivery.sent_at),
  };
}

/** A delivery status asked for in a query, or null for all. */
export function deliveryStatus(status: string | undefined): DeliveryStatus | null {
  return (status as DeliveryStatus | undefined) ?? null;
}

/** A ticket's delivery as ticket answers carry it: null when its email was never queued. */
export function deliverySummaryView(
  summary: DeliverySummary | undefined,
): { status: DeliveryStatus; sent_at: string | null; last_error: string | null } | null {
  return summary === undefined
    ? null
    : { status: summary.status, sent_at: toWire(summary.sent_at), last_error: summary.last_error };
}
