/**
 * The webhook outbox on SQLite: messages written in the transaction of the change they report, one
 * per subscribed endpoint. Their delivery (claims, the end of each attempt, the deliveries log) is in
 * outbox-delivery.ts; the upkeep (outbox-upkeep.ts) clears what disabled and deleted endpoints leave,
 * a batch at a time.
 */
import { ANCHOR, COLLIDED_WITH, DUPLICATE_OUTCOMES, DUPLICATE_REASON, IS_CONFLICT, KEPT_BY_KEY } from '../conflicts.ts';
import type { OutboxMessage } from '../webhook-records.ts';
import type { SqliteContext } from './context.ts';

/** A new message id, made by SQLite. */
export const NEW_ID = `'msg_' || lower(hex(randomblob(16)))`;

/** Writes the message for every endpoint subscribed to its type and event; inside the caller's transaction. */
export function fanOut(c: SqliteContext, m: OutboxMessage): void {
  if (!c.subscribers.any(c, m.type, m.eid)) return;
  c.run(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_ID}, webhook_id, ?, ?, ?, ?, 'pending', ?
       FROM webhook_subscriptions WHERE type IN (?, '*') AND eid_key IN (?, '')`,
    m.type,
    JSON.stringify(m.data),
    m.position,
    m.occurred_at,
    m.occurred_at,
    m.type,
    m.eid ?? '',
  );
}

/** Writes a message for one endpoint, whatever it subscribes to (a test message); its message_id. */
export function enqueueTo(c: SqliteContext, webhookId: string, m: OutboxMessage): Promise<string> {
  return c.tx(() => {
    const row = c.one<{ message_id: string }>(
      `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
       VALUES (${NEW_ID}, ?, ?, ?, ?, ?, 'pending', ?) RETURNING message_id`,
      webhookId,
      m.type,
      JSON.stringify(m.data),
      m.position,
      m.occurred_at,
      m.occurred_at,
    );
    return row!.message_id;
  });
}

/**
 * The conflicts that scans just logged under these idempotency keys make (the conflicts report's rule:
 * a duplicate `already_used` scan by another scanner that let the holder in offline, or could not have
 * known; an admission made offline that the entry rules refuse), each with the entry it collided with
 * as `first` (the refused admission itself when the ticket had none before it) and the duplicate's
 * `reason`; inside the caller's transaction.
 */
export function fanOutConflicts(c: SqliteContext, eid: string, keys: string[], at: string): void {
  if (keys.length === 0) return;
  c.run(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_ID}, s.webhook_id, 'checkin.conflict',
       json_object('eid', d.eid, 'tid', d.tid, 'holder_name', t.holder_name,
         'first', json_object('scanner_id', f.scanner_id, 'gate_id', f.gate_id, 'scanned_at', f.scanned_at,
           'received_at', f.received_at),
         'duplicate', json_object('scanner_id', d.scanner_id, 'gate_id', d.gate_id, 'scanned_at', d.scanned_at,
           'received_at', d.received_at, 'admitted_offline', json(CASE WHEN d.admitted_offline THEN 'true' ELSE 'false' END),
           'reason', ${DUPLICATE_REASON('d')})),
       NULL, ?, 'pending', ?
     FROM scans d
     LEFT JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')}
     JOIN scans f ON f.scan_id = ${ANCHOR('d', 'v')}
     JOIN tickets t ON t.tid = d.tid
     JOIN webhook_subscriptions s ON s.type IN ('checkin.conflict', '*') AND s.eid_key IN (d.eid, '')
     WHERE d.eid = ? AND d.idempotency_key IN (SELECT value FROM json_each(?)) AND d.outcome IN ${DUPLICATE_OUTCOMES}
       AND ${KEPT_BY_KEY('d')}
       AND ${IS_CONFLICT('d', 'v')}`,
    at,
    at,
    eid,
    JSON.stringify(keys),
  );
}
