import { spelledZone, type TicketTypeRules } from '@ticket-issuer/protocol';
import type {
  CheckInAttempt,
  EventRecord,
  GateRecord,
  Occupancy,
  Page,
  ScanLogPage,
  ScannerNameFacts,
  ScanOutcome,
  ScanRecord,
  SigningKeyRecord,
  TicketRecord,
} from './store.ts';

/**
 * The columns of a ticket record, for every read of `tickets` that answers one: the table also holds
 * `search_name` and `search_words`, the searches' own columns, which are no part of a ticket.
 */
export const TICKET_COLUMNS_SQL = `tid, eid, holder_name, ticket_type, issued_at, expires_at, checked_in_at, revoked_at,
  revoke_reason, ticket_token, external_id, valid_from, attention, checkin_text, email, order_ref, short_code`;

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** A ticket row as either database answers it: SQLite keeps `attention` as 0 or 1. */
export const toTicket = <T extends TicketRecord | null | undefined>(row: T): T =>
  (row ? { ...row, attention: (row.attention as unknown) === true || (row.attention as unknown) === 1 } : row) as T;

/** A signing-key row: its public JWK is kept as JSON text on every backend. */
export const toSigningKey = (row: Row): SigningKeyRecord => ({
  ...(row as unknown as SigningKeyRecord),
  public_jwk: JSON.parse(row.public_jwk as string) as Record<string, string>,
});

/** A page from `limit + 1` rows: the extra row only tells that there is more. */
export function page<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? cursorOf(last) : null };
}

/**
 * The scan log's rows with each scanner's enrolled name (alias `s`; the caller adds WHERE and ORDER
 * BY), and as `log_cursor` the column the store pages its log by, in its commit order.
 */
export const scanLogSql = (cursorColumn: string) => `SELECT ${cursorColumn} AS log_cursor,
    s.scan_id, s.eid, s.tid, s.api_key_id, s.scanner_id, k.scanner_name, s.gate_id,
    s.idempotency_key, s.scanned_at, s.received_at, s.outcome, s.reason, s.replay, s.admitted_offline,
    s.annulled_at, s.manual, CASE WHEN t.eid = s.eid THEN t.holder_name END AS holder_name
  FROM scans s LEFT JOIN api_keys k ON k.api_key_id = s.api_key_id LEFT JOIN tickets t ON t.tid = s.tid`;

/**
 * A page of the scan log from `limit + 1` rows of `scanLogSql`. Like the changes feed, it always
 * names a cursor: the last line's, else the one it was read after, so a pager at the end asks again
 * later from there.
 */
export function scanLogPage(rows: Row[], limit: number, after: number | null): ScanLogPage {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map(toScan),
    next_cursor: last === undefined ? String(after ?? 0) : String(last.log_cursor),
    has_more: rows.length > limit,
  };
}

/**
 * What names a scanner enrolled without a name, in the enrolment's transaction (params: eid, gate
 * key, scanner_id; the gate key is '' for no gate): the gate's declaration, this scanner's last name
 * at that gate, and how many other scanners enrolled there.
 */
export const SCANNER_NAME_FACTS_SQL = `SELECT
    (SELECT name FROM gates g WHERE g.eid = p.eid AND g.gate_id = p.gate_key) AS gate_name,
    (SELECT scanner_name FROM api_keys k
      WHERE k.eid = p.eid AND COALESCE(k.gate_id, '') = p.gate_key AND k.scanner_id = p.scanner_id
        AND k.scanner_name IS NOT NULL
      ORDER BY k.enrolled_at DESC, k.api_key_id DESC LIMIT 1) AS previous_name,
    (SELECT COUNT(DISTINCT k.scanner_id) FROM api_keys k
      WHERE k.eid = p.eid AND COALESCE(k.gate_id, '') = p.gate_key AND k.scanner_id <> p.scanner_id) AS enrolled_before
  FROM (SELECT ? AS eid, ? AS gate_key, ? AS scanner_id) p`;

/** The naming facts from their row (COUNT arrives as a string from PostgreSQL). */
export function toScannerNameFacts(row: Row, gateId: string | null): ScannerNameFacts {
  return {
    gate_id: gateId,
    gate_name: (row.gate_name as string | null) ?? null,
    previous_name: (row.previous_name as string | null) ?? null,
    enrolled_before: Number(row.enrolled_before),
  };
}

/**
 * An event's enrolment tokens, newest first, with the scanner each was exchanged for (param: eid):
 * a token is redeemed once, so the join finds at most one API key.
 */
export const LIST_ENROLLMENT_TOKENS_SQL = `SELECT e.*, k.scanner_id, k.scanner_name
  FROM enrollment_tokens e LEFT JOIN api_keys k ON k.token_id = e.token_id
  WHERE e.eid = ? ORDER BY e.created_at DESC, e.token_id DESC`;

/** A scan-log row on any backend: SQLite answers 0/1 for booleans, PostgreSQL BIGINT ids as strings. */
export const toScan = (row: Row): ScanRecord => ({
  scan_id: Number(row.scan_id),
  eid: row.eid as string,
  tid: row.tid as string,
  api_key_id: row.api_key_id as string,
  scanner_id: row.scanner_id as string,
  scanner_name: (row.scanner_name as string | null) ?? null,
  // Of the event's own tickets only: a scan of another event's ticket says nothing of its holder.
  holder_name: (row.holder_name as string | null) ?? null,
  gate_id: (row.gate_id as string | null) ?? null,
  idempotency_key: row.idempotency_key as string,
  scanned_at: row.scanned_at as string,
  received_at: row.received_at as string,
  outcome: row.outcome as ScanOutcome,
  reason: (row.reason as string | null) ?? null,
  replay: row.replay === true || row.replay === 1,
  admitted_offline: row.admitted_offline === true || row.admitted_offline === 1,
  annulled_at: (row.annulled_at as string | null) ?? null,
  manual: row.manual === true || row.manual === 1,
});

/** The columns a scan-log row is written with, in the order of `scanValues`. */
export const SCAN_INSERT_COLUMNS = `eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at,
  received_at, outcome, reason, replay, admitted_offline, turned_away_offline, manual`;

/**
 * A scan-log row's values, in the order of `SCAN_INSERT_COLUMNS`, the same on every backend: the
 * scanner's offline verdict is kept as two flags (admitted; turned away), both false when it sent none;
 * `manual` marks a check-in chosen from a search by the holder's name.
 */
export function scanValues(
  attempt: CheckInAttempt,
  outcome: string,
  reason: string | null,
  replay: boolean,
): (string | boolean | null)[] {
  return [
    attempt.eid,
    attempt.tid,
    attempt.api_key_id,
    attempt.scanner_id,
    attempt.gate_id,
    attempt.idempotency_key,
    attempt.scanned_at,
    attempt.received_at,
    outcome,
    reason,
    replay,
    attempt.admitted_offline === true,
    attempt.admitted_offline === false,
    attempt.manual === true,
  ];
}

/**
 * An event row as either database answers it: SQLite keeps `reentry` and `auto_exit` as 0 or 1; a zone
 * kept in another case by an older release is answered as the time-zone database spells it.
 */
export function toEvent(row: Row): EventRecord {
  return {
    eid: row.eid as string,
    name: row.name as string,
    event_date: row.event_date as string,
    ends_at: (row.ends_at as string | null) ?? null,
    created_at: row.created_at as string,
    reentry: row.reentry === true || row.reentry === 1,
    capacity: row.capacity === null || row.capacity === undefined ? null : Number(row.capacity),
    timezone: spelledZone(row.timezone as string),
    day_starts_at: row.day_starts_at as string,
    auto_exit: row.auto_exit === true || row.auto_exit === 1,
  };
}

/** A gate row: `admits` is kept as a JSON array, or null for every type. */
export function toGate(row: Row): GateRecord {
  return {
    eid: row.eid as string,
    gate_id: row.gate_id as string,
    name: row.name as string,
    admits: row.admits === null ? null : (JSON.parse(row.admits as string) as string[]),
    updated_at: row.updated_at as string,
  };
}

/**
 * A row of `gate_counts`: one gate's entries and exits (`gate_key` '' for scans that named none), and
 * its entries made while the holder was counted inside already (`repeats`).
 */
export interface CountRow {
  gate_key: string;
  entries: number | string;
  exits: number | string;
  repeats: number | string;
}

/** The event's counter rows (param: eid). */
export const GATE_COUNTS_SQL =
  'SELECT gate_key, entries, exits, repeats FROM gate_counts WHERE eid = ? ORDER BY gate_key';

/**
 * The occupancy from an event's counter rows: every entry and exit moved one of them in its own
 * transaction, so inside = entries − exits − entries made while inside, exactly.
 */
export function occupancyOf(rows: CountRow[]): Occupancy {
  const gates = rows.map((row) => ({
    gate_id: row.gate_key === '' ? null : row.gate_key,
    entries: Number(row.entries),
    exits: Number(row.exits),
  }));
  const repeats = rows.reduce((sum, row) => sum + Number(row.repeats), 0);
  return { inside: gates.reduce((sum, gate) => sum + gate.entries - gate.exits, 0) - repeats, gates };
}

/** A declared ticket type's row as either database answers it (JSON text, 0/1 or booleans). */
export const toTicketTypeRules = (row: Row): TicketTypeRules => ({
  ticket_type: row.ticket_type as string,
  valid_days: row.valid_days == null ? null : (JSON.parse(row.valid_days as string) as string[]),
  hours: row.hours_from == null ? null : { from: row.hours_from as string, until: row.hours_until as string },
  max_entries: row.max_entries == null ? null : Number(row.max_entries),
  max_entries_per_day: row.max_entries_per_day == null ? null : Number(row.max_entries_per_day),
  max_days: row.max_days == null ? null : Number(row.max_days),
  reentry: (row.reentry ?? null) as TicketTypeRules['reentry'],
  min_minutes_between_entries: row.min_minutes_between_entries == null ? null : Number(row.min_minutes_between_entries),
  attention: row.attention === true || row.attention === 1,
  checkin_text: (row.checkin_text ?? null) as string | null,
});

/** The declared ticket types of an event (param: eid), in label order. */
export const TICKET_TYPES_SQL = 'SELECT * FROM ticket_types WHERE eid = ? ORDER BY type_key';
