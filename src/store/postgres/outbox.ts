/**
 * The webhook outbox on PostgreSQL: messages written in the transaction of the change they report,
 * one per subscribed endpoint. Their delivery (claims, the end of each attempt, the deliveries log) is
 * in outbox-delivery.ts; the upkeep (outbox-upkeep.ts) clears what disabled and deleted endpoints
 * leave, a bounded batch at a time.
 */
import { ANCHOR, COLLIDED_WITH, DUPLICATE_OUTCOMES, DUPLICATE_REASON, IS_CONFLICT, KEPT_BY_KEY } from '../conflicts.ts';
import type { OutboxMessage } from '../webhook-records.ts';
import { type Db, one } from './queries.ts';

export const NEW_MESSAGE_ID = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/** An instant (a timestamptz expression) in the stored form, `YYYY-MM-DDThh:mm:ss.mmmZ`, which sorts as text. */
export const stored = (instant: string) => `to_char((${instant}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** Now, by the database's clock, in the stored form. */
export const DB_NOW = stored('now()');

/** Writes the message for every endpoint subscribed to its type and event; inside the caller's transaction. */
export async function fanOut(db: Db, m: OutboxMessage): Promise<void> {
  await db.query(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_MESSAGE_ID}, webhook_id, $1, $2, $3, $4, 'pending', ${DB_NOW}
       FROM webhook_subscriptions WHERE type IN ($1, '*') AND eid_key IN ($5, '')`,
    [m.type, JSON.stringify(m.data), m.position, m.occurred_at, m.eid ?? ''],
  );
}

/** Writes a message for one endpoint, whatever it subscribes to (a test message); its message_id. */
export async function enqueueTo(db: Db, webhookId: string, m: OutboxMessage): Promise<string> {
  const row = await one<{ message_id: string }>(
    db,
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     VALUES (${NEW_MESSAGE_ID}, $1, $2, $3, $4, $5, 'pending', ${DB_NOW}) RETURNING message_id`,
    [webhookId, m.type, JSON.stringify(m.data), m.position, m.occurred_at],
  );
  return row!.message_id;
}

/**
 * The conflicts that scans just logged under these idempotency keys make (the conflicts report's rule),
 * each with the entry it collided with as `first` (the refused admission itself when the ticket had
 * none before it) and the duplicate's `reason`; inside the caller's transaction.
 */
export async function fanOutConflicts(db: Db, eid: string, keys: string[], at: string): Promise<void> {
  if (keys.length === 0) return;
  await db.query(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_MESSAGE_ID}, s.webhook_id, 'checkin.conflict',
       json_build_object('eid', d.eid, 'tid', d.tid, 'holder_name', t.holder_name,
         'first', json_build_object('scanner_id', f.scanner_id, 'gate_id', f.gate_id, 'scanned_at', f.scanned_at,
           'received_at', f.received_at),
         'duplicate', json_build_object('scanner_id', d.scanner_id, 'gate_id', d.gate_id, 'scanned_at', d.scanned_at,
           'received_at', d.received_at, 'admitted_offline', d.admitted_offline, 'reason', ${DUPLICATE_REASON('d')}))::text,
       NULL, $3, 'pending', ${DB_NOW}
     FROM scans d
     LEFT JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')}
     JOIN scans f ON f.scan_id = ${ANCHOR('d', 'v')}
     JOIN tickets t ON t.tid = d.tid
     JOIN webhook_subscriptions s ON s.type IN ('checkin.conflict', '*') AND s.eid_key IN (d.eid, '')
     WHERE d.eid = $1 AND d.idempotency_key = ANY($2::text[]) AND d.outcome IN ${DUPLICATE_OUTCOMES}
       AND ${KEPT_BY_KEY('d')}
       AND ${IS_CONFLICT('d', 'v')}`,
    [eid, keys, at],
  );
}
