import type { ChangeRecord, ChangeType, ConflictRecord, Page } from '../store.ts';
import { CONFLICTS_PAGE_SQL, conflictCards } from '../conflicts.ts';
import type { Row } from '../rows.ts';
import { type ChangeExtra, toChange } from '../change-rows.ts';
import type { OutboxMessage } from '../webhook-records.ts';
import type { SqliteContext } from './context.ts';
import { fanOut } from './outbox.ts';
import { countArrival, countExits } from './counters.ts';
import { GATE_COUNTS } from '../kept-counts.ts';

/**
 * Appends a change at the event's next position, and the webhook message that reports it (with that
 * position) for every subscribed endpoint; runs inside the caller's transaction (SQLite serializes them).
 * Inside a group commit the position is handed out in memory (see GroupPositions).
 */
export function appendChange(
  c: SqliteContext,
  eid: string,
  type: ChangeType,
  tid: string,
  at: string,
  extra: ChangeExtra = {},
  message: Omit<OutboxMessage, 'position'> | null = null,
): void {
  const position = c.positions.take(eid);
  c.run(
    `INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, jti, attention, checkin_text, idempotency_key, auto)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    eid,
    position,
    type,
    tid,
    at,
    extra.scanner_id ?? null,
    extra.gate_id ?? null,
    extra.jti ?? null,
    extra.attention === undefined ? null : Number(extra.attention),
    extra.checkin_text ?? null,
    extra.idempotency_key ?? null,
    extra.auto === true ? 1 : null,
  );
  if (type === 'checked_in' || type === 'checked_out') {
    const moves = type === 'checked_in' ? { entries: 1 } : { exits: 1 };
    c.counts.add(GATE_COUNTS, [eid, extra.gate_id ?? ''], moves);
  }
  if (type === 'checked_in') countArrival(c, eid, at, extra.gate_id ?? null);
  if (type === 'checked_out') countExits(c, eid, at, 1);
  if (message !== null) fanOut(c, { ...message, position });
}

export async function listChanges(
  c: SqliteContext,
  eid: string,
  after: number,
  limit: number,
): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
  const rows = c.all<Row>(
    'SELECT * FROM changes WHERE eid = ? AND position > ? ORDER BY position LIMIT ?',
    eid,
    after,
    limit + 1,
  );
  await c.walSync?.settled();
  return { items: rows.slice(0, limit).map(toChange), has_more: rows.length > limit };
}

export async function listConflicts(
  c: SqliteContext,
  eid: string,
  limit: number,
  after: number | null,
): Promise<Page<ConflictRecord>> {
  // One statement, one snapshot.
  return conflictCards(c.all<Row>(CONFLICTS_PAGE_SQL, eid, after ?? 0, limit + 1), limit);
}
