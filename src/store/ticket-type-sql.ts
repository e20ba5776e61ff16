import { ticketTypeKey } from '@ticket-issuer/protocol';
import type { TicketTypeRecord } from './store.ts';

/**
 * The SQL of declared ticket types shared by both stores (`?` placeholders; PostgreSQL numbers them).
 * A declaration is keyed by its label as rules compare labels (`ticketTypeKey`).
 */
export const PUT_TICKET_TYPE_SQL = `INSERT INTO ticket_types (eid, type_key, ticket_type, valid_days, hours_from, hours_until,
    max_entries, max_entries_per_day, max_days, reentry, min_minutes_between_entries, attention, checkin_text,
    updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (eid, type_key) DO UPDATE SET ticket_type = excluded.ticket_type, valid_days = excluded.valid_days,
    hours_from = excluded.hours_from, hours_until = excluded.hours_until, max_entries = excluded.max_entries,
    max_entries_per_day = excluded.max_entries_per_day, max_days = excluded.max_days, reentry = excluded.reentry,
    min_minutes_between_entries = excluded.min_minutes_between_entries, attention = excluded.attention,
    checkin_text = excluded.checkin_text, updated_at = excluded.updated_at`;

export const DELETE_TICKET_TYPE_SQL = 'DELETE FROM ticket_types WHERE eid = ? AND type_key = ?';

/**
 * The distinct labels on an event's tickets (params: eid, eid), one index probe per label
 * (`tickets_by_type`) rather than a read of every ticket: an event of a million tickets holds a
 * handful of labels.
 */
export const TICKET_LABELS_SQL = `WITH RECURSIVE labels (label) AS (
    SELECT (SELECT ticket_type FROM tickets WHERE eid = ? ORDER BY ticket_type LIMIT 1)
    UNION ALL
    SELECT (SELECT t.ticket_type FROM tickets t WHERE t.eid = ? AND t.ticket_type > l.label ORDER BY t.ticket_type LIMIT 1)
      FROM labels l WHERE l.label IS NOT NULL
  )
  SELECT label FROM labels WHERE label IS NOT NULL`;

/** A declaration's values in the order of `PUT_TICKET_TYPE_SQL` (`attention` as the backend keeps booleans). */
export function ticketTypeValues(type: TicketTypeRecord, attention: boolean | number): unknown[] {
  return [
    type.eid,
    ticketTypeKey(type.ticket_type),
    type.ticket_type,
    type.valid_days === null ? null : JSON.stringify(type.valid_days),
    type.hours?.from ?? null,
    type.hours?.until ?? null,
    type.max_entries,
    type.max_entries_per_day,
    type.max_days,
    type.reentry,
    type.min_minutes_between_entries,
    attention,
    type.checkin_text,
    type.updated_at,
  ];
}
