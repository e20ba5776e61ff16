import { CONFLICTS_PAGE_SQL, conflictCards } from '../conflicts.ts';
import type { Row } from '../rows.ts';
import { type ChangeExtra, toChange } from '../change-rows.ts';
import type { ChangeRecord, ChangeType, ConflictRecord, Page } from '../store.ts';
import type { OutboxMessage } from '../webhook-records.ts';
import { NEW_MESSAGE_ID } from './outbox.ts';
import { all, type Db, numbered } from './queries.ts';

const CONFLICTS_PAGE = numbered(CONFLICTS_PAGE_SQL);

/** The event's changes after a position, in order; positions commit in order (see appendChange). */
export async function listChanges(
  db: Db,
  eid: string,
  after: number,
  limit: number,
): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
  const rows = await all<Row>(db, 'SELECT * FROM changes WHERE eid = $1 AND position > $2 ORDER BY position LIMIT $3', [
    eid,
    after,
    limit + 1,
  ]);
  // BIGINT arrives as a string; positions stay far below 2^53.
  return { items: rows.slice(0, limit).map(toChange), has_more: rows.length > limit };
}

/** The event's offline double entries, a page at a time, read in one snapshot (one statement). */
export async function listConflicts(
  db: Db,
  eid: string,
  limit: number,
  after: number | null,
): Promise<Page<ConflictRecord>> {
  return conflictCards(await all<Row>(db, CONFLICTS_PAGE, [eid, after ?? 0, limit + 1]), limit);
}

/**
 * Appends a change at the event's next position, inside the caller's transaction. The counter row's
 * lock is held until that transaction ends, so positions are handed out in commit order and never
 * skipped (a rolled-back transaction gives its position back): a reader that saw position p has
 * seen every position below p. A sequence would not do: a lower value can commit after a higher one.
 */
export async function appendChange(
  db: Db,
  eid: string,
  type: ChangeType,
  tid: string,
  at: string,
  extra: ChangeExtra = {},
  message: Omit<OutboxMessage, 'position'> | null = null,
): Promise<void> {
  // The webhook messages that report the change go in the same statement: no round trip of their own.
  await db.query(
    `WITH next AS (
       INSERT INTO change_counters (eid, last_position) VALUES ($1, 1)
       ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + 1
       RETURNING last_position),
     fed AS (
       INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, jti, attention, checkin_text, idempotency_key, auto)
       SELECT $1, last_position, $2, $3, $4, $5, $6, $7, $11::boolean, $12::text, $13::text, $14::boolean FROM next)
     INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
     SELECT ${NEW_MESSAGE_ID}, s.webhook_id, $8, $9, next.last_position, $10, 'pending', $10
       FROM next, webhook_subscriptions s
      WHERE $8::text IS NOT NULL AND s.type IN ($8, '*') AND s.eid_key IN ($1, '')`,
    [
      eid,
      type,
      tid,
      at,
      extra.scanner_id ?? null,
      extra.gate_id ?? null,
      extra.jti ?? null,
      message?.type ?? null,
      message === null ? null : JSON.stringify(message.data),
      message?.occurred_at ?? null,
      extra.attention ?? null,
      extra.checkin_text ?? null,
      extra.idempotency_key ?? null,
      extra.auto === true ? true : null,
    ],
  );
  // After the counter row: the lock order of every writer (see the check-in batch).
  if (type === 'checked_in' || type === 'checked_out') {
    const entry = type === 'checked_in' ? 1 : 0;
    // An entry also counts in its minute (the arrivals chart), an exit in its own (the report), in the same statement.
    await db.query(
      `WITH arrived AS (
         INSERT INTO arrival_counts (eid, minute, gate_key, entries) SELECT $1, substr($5::text, 1, 16), $2, 1 WHERE $6::boolean
         ON CONFLICT (eid, minute, gate_key) DO UPDATE SET entries = arrival_counts.entries + 1),
       exited AS (
         INSERT INTO minute_counts (eid, minute, exits, repeats) SELECT $1, substr($5::text, 1, 16), 1, 0 WHERE NOT $6::boolean
         ON CONFLICT (eid, minute) DO UPDATE SET exits = minute_counts.exits + 1)
       INSERT INTO gate_counts (eid, gate_key, entries, exits) VALUES ($1, $2, $3, $4)
         ON CONFLICT (eid, gate_key) DO UPDATE
         SET entries = gate_counts.entries + EXCLUDED.entries, exits = gate_counts.exits + EXCLUDED.exits`,
      [eid, extra.gate_id ?? '', entry, 1 - entry, at, entry === 1],
    );
  }
}
