import type { KnownAttempt } from '../replay.ts';
import type { CheckInAttempt, ScanOutcome } from '../store.ts';

/** An answer to remember under its idempotency key. */
export interface Remembered {
  attempt: CheckInAttempt;
  known: KnownAttempt;
}

/** A line of the scan log. */
export interface LoggedScan {
  attempt: CheckInAttempt;
  outcome: ScanOutcome;
  reason: string | null;
  replay: boolean;
}

/** A ticket checked in by the batch. */
export interface CheckedIn {
  attempt: CheckInAttempt;
  at: string;
}

/**
 * Everything a batch of check-ins writes, as one statement of data-modifying CTEs (one round trip,
 * one parameter array per column whatever the batch size): the remembered answers, the scan log in
 * item order, the tickets checked in (and inside) with their counted entries, and their `checked_in` changes. Each event's counter
 * row moves once (events in eid order: the last lock of the batch's order): its feed position by the
 * number of its changes, its scan-log position by the number of its scans; the changes and the scans
 * take the positions just below the new values, in item order. After it, the event's kept counts (its
 * `checked_in` counter, entries per minute and gate: see counters.ts). Last, each change's `ticket.checked_in`
 * message for every subscribed webhook endpoint, with its position.
 */
const WRITE_SQL = `
  WITH remembered AS (
    INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[])
  ), counters AS (
    INSERT INTO change_counters (eid, last_position, last_log_position)
    SELECT eid, sum(changes), sum(scans) FROM (
      SELECT eid, 1 AS changes, 0 AS scans FROM unnest($21::text[]) AS c (eid)
      UNION ALL SELECT eid, 0, 1 FROM unnest($9::text[]) AS s (eid)) AS moved
    GROUP BY eid ORDER BY eid
    ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + EXCLUDED.last_position,
      last_log_position = change_counters.last_log_position + EXCLUDED.last_log_position
    RETURNING eid, last_position, last_log_position
  ), logged AS (
    INSERT INTO scans (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at,
      outcome, reason, replay, admitted_offline, turned_away_offline, manual, log_position)
    SELECT s.eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at,
      outcome, reason, replay, admitted_offline, turned_away_offline, manual,
      counters.last_log_position - count(*) OVER (PARTITION BY s.eid) + row_number() OVER (PARTITION BY s.eid ORDER BY n)
    FROM unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
      $16::text[], $17::text[], $18::text[], $19::boolean[], $20::boolean[], $26::boolean[], $30::boolean[])
      WITH ORDINALITY AS s (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at,
        outcome, reason, replay, admitted_offline, turned_away_offline, manual, n)
    JOIN counters ON counters.eid = s.eid
    ORDER BY n
  ), checked AS (
    UPDATE tickets SET checked_in_at = c.at FROM unnest($22::text[], $23::text[]) AS c (tid, at)
    WHERE tickets.tid = c.tid
  ), entered AS (
    INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at, gate_key)
    SELECT e.eid, e.idempotency_key, e.tid, e.scanner_id, e.scanned_at, coalesce(e.gate_id, '')
    FROM unnest($21::text[], $29::text[], $22::text[], $24::text[], $23::text[], $25::text[])
      AS e (eid, idempotency_key, tid, scanner_id, scanned_at, gate_id)
  ), present AS (
    INSERT INTO presence (tid, eid, inside)
    SELECT tid, eid, true FROM unnest($22::text[], $21::text[]) AS p (tid, eid)
    ON CONFLICT (tid) DO UPDATE SET inside = true
  ), gate_counted AS (
    INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT g.eid, coalesce(g.gate_id, ''), count(*), 0
    FROM unnest($21::text[], $25::text[]) AS g (eid, gate_id)
    JOIN counters ON counters.eid = g.eid -- after the feed counters: every writer's lock order
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (eid, gate_key) DO UPDATE SET entries = gate_counts.entries + EXCLUDED.entries
  ), event_counted AS (
    INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
    SELECT e.eid, 0, count(*), 0, 0 FROM unnest($21::text[]) AS e (eid)
    JOIN counters ON counters.eid = e.eid -- after the feed counters, as gate_counts
    GROUP BY e.eid ORDER BY e.eid
    ON CONFLICT (eid) DO UPDATE SET checked_in = event_counters.checked_in + EXCLUDED.checked_in
  ), arrived AS (
    INSERT INTO arrival_counts (eid, minute, gate_key, entries)
    SELECT a.eid, substr(a.at, 1, 16), coalesce(a.gate_id, ''), count(*)
    FROM unnest($21::text[], $23::text[], $25::text[]) AS a (eid, at, gate_id)
    JOIN counters ON counters.eid = a.eid
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (eid, minute, gate_key) DO UPDATE SET entries = arrival_counts.entries + EXCLUDED.entries
  ), fed AS (
    INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, idempotency_key)
    SELECT c.eid,
      counters.last_position - count(*) OVER (PARTITION BY c.eid) + row_number() OVER (PARTITION BY c.eid ORDER BY c.n),
      'checked_in', c.tid, c.at, c.scanner_id, c.gate_id, c.idempotency_key
    FROM unnest($21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $29::text[]) WITH ORDINALITY
      AS c (eid, tid, at, scanner_id, gate_id, idempotency_key, n)
    JOIN counters ON counters.eid = c.eid
    RETURNING eid, position, tid, at, scanner_id, gate_id
  )
  INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.webhook_id, 'ticket.checked_in',
    json_build_object('eid', f.eid, 'tid', f.tid, 'holder_name', t.holder_name, 'ticket_type', t.ticket_type,
      'checked_in_at', CASE WHEN f.at LIKE '%.000Z' THEN left(f.at, -5) || 'Z' ELSE f.at END,
      'scanner_id', f.scanner_id, 'gate_id', f.gate_id, 'admitted_offline', x.admitted_offline)::text,
    f.position, x.received_at, 'pending', x.received_at
  FROM fed f
  JOIN unnest($22::text[], $27::boolean[], $28::text[]) AS x (tid, admitted_offline, received_at) ON x.tid = f.tid
  JOIN tickets t ON t.tid = f.tid
  JOIN webhook_subscriptions s ON s.type IN ('ticket.checked_in', '*') AND s.eid_key IN (f.eid, '')`;

/** The batch's one write statement and its parameters. */
export function batchWrite(
  remembered: Remembered[],
  scans: LoggedScan[],
  checkedIn: CheckedIn[],
): { text: string; values: unknown[] } {
  const column = <T, V>(items: T[], pick: (item: T) => V): V[] => items.map(pick);
  return {
    text: WRITE_SQL,
    values: [
      column(remembered, (r) => r.attempt.eid),
      column(remembered, (r) => r.attempt.idempotency_key),
      column(remembered, (r) => r.known.fingerprint),
      column(remembered, (r) => r.known.http_status),
      column(remembered, (r) => r.known.body),
      column(remembered, (r) => r.known.outcome),
      column(remembered, (r) => r.known.reason),
      column(remembered, (r) => r.attempt.received_at),
      column(scans, (s) => s.attempt.eid),
      column(scans, (s) => s.attempt.tid),
      column(scans, (s) => s.attempt.api_key_id),
      column(scans, (s) => s.attempt.scanner_id),
      column(scans, (s) => s.attempt.gate_id),
      column(scans, (s) => s.attempt.idempotency_key),
      column(scans, (s) => s.attempt.scanned_at),
      column(scans, (s) => s.attempt.received_at),
      column(scans, (s) => s.outcome),
      column(scans, (s) => s.reason),
      column(scans, (s) => s.replay),
      column(scans, (s) => s.attempt.admitted_offline === true),
      column(checkedIn, (c) => c.attempt.eid),
      column(checkedIn, (c) => c.attempt.tid),
      column(checkedIn, (c) => c.at),
      column(checkedIn, (c) => c.attempt.scanner_id),
      column(checkedIn, (c) => c.attempt.gate_id),
      column(scans, (s) => s.attempt.admitted_offline === false),
      column(checkedIn, (c) => c.attempt.admitted_offline === true),
      column(checkedIn, (c) => c.attempt.received_at),
      column(checkedIn, (c) => c.attempt.idempotency_key),
      column(scans, (s) => s.attempt.manual === true),
    ],
  };
}
