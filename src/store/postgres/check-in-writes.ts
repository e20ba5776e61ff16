import type { CheckInPlan } from '../../domain/check-in-plan.ts';
import type { KnownAttempt } from '../replay.ts';
import type { CheckInAttempt, Presence, ScanOutcome } from '../store.ts';

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

/** An attempt of the batch and its plan of moves (see check-in-plan.ts). */
export interface PlannedAttempt {
  attempt: CheckInAttempt;
  plan: CheckInPlan;
}

/**
 * Everything a batch of check-ins and exits writes, as one statement of data-modifying CTEs (one round
 * trip, one parameter array per column whatever the batch size): the remembered answers, the scan log
 * in item order, each ticket's last entry and each holder's presence as the batch leaves them (one row
 * per ticket), the counted entries, and the plans' changes in order. Each event's counter row moves
 * once (events in eid order: the last lock of the batch's order): its feed position by the number of
 * its changes, its scan-log position by the number of its scans; the changes and the scans take the
 * positions just below the new values, in item order. After it, the event's kept counts: entries,
 * exits and repeats per gate, the first entries (its `checked_in` counter), entries per minute and
 * gate (see counters.ts), the ticket types' counts and the event days' holders (report-counts.ts), the
 * exits and re-entries per minute (minute-counts.ts), each row once per batch. Last, each change's message for every subscribed webhook endpoint, with its
 * position.
 */
const WRITE_SQL = `
  WITH remembered AS (
    INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at, tid)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
      $57::text[])
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
      $16::text[], $17::text[], $18::text[], $19::boolean[], $20::boolean[], $38::boolean[], $39::boolean[])
      WITH ORDINALITY AS s (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at,
        outcome, reason, replay, admitted_offline, turned_away_offline, manual, n)
    JOIN counters ON counters.eid = s.eid
    ORDER BY n
  ), ticketed AS (
    UPDATE tickets SET checked_in_at = t.at FROM unnest($30::text[], $31::text[]) AS t (tid, at)
    WHERE tickets.tid = t.tid
  ), present AS (
    INSERT INTO presence (tid, eid, inside, checked_out_at)
    SELECT * FROM unnest($32::text[], $33::text[], $34::boolean[], $35::text[])
    ON CONFLICT (tid) DO UPDATE SET inside = EXCLUDED.inside, checked_out_at = EXCLUDED.checked_out_at
  ), entered AS (
    INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at, gate_key, was_inside, day)
    SELECT * FROM unnest($40::text[], $41::text[], $42::text[], $43::text[], $44::text[], $45::text[], $46::boolean[],
      $50::text[])
  ), numbered AS (
    SELECT c.*, counters.last_position - count(*) OVER (PARTITION BY c.eid)
      + row_number() OVER (PARTITION BY c.eid ORDER BY c.n) AS position
    FROM unnest($21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::text[], $27::text[],
      $28::boolean[], $29::text[], $47::text[], $48::text[]) WITH ORDINALITY
      AS c (eid, type, tid, at, scanner_id, gate_id, idempotency_key, auto, message_type, data, occurred_at, n)
    JOIN counters ON counters.eid = c.eid
  ), fed AS (
    INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, idempotency_key, auto)
    SELECT eid, position, type, tid, at, scanner_id, gate_id, idempotency_key, auto FROM numbered
  ), gate_counted AS (
    INSERT INTO gate_counts (eid, gate_key, entries, exits, repeats)
    SELECT g.eid, g.gate_key, sum(g.entries), sum(g.exits), sum(g.repeats) FROM (
      SELECT eid, coalesce(gate_id, '') AS gate_key, (type = 'checked_in')::int AS entries,
        (type = 'checked_out')::int AS exits, 0 AS repeats FROM numbered
      UNION ALL SELECT r.eid, r.gate_key, 0, 0, 1 FROM unnest($36::text[], $37::text[]) AS r (eid, gate_key)) AS g
    JOIN counters ON counters.eid = g.eid -- after the feed counters: every writer's lock order
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (eid, gate_key) DO UPDATE SET entries = gate_counts.entries + EXCLUDED.entries,
      exits = gate_counts.exits + EXCLUDED.exits, repeats = gate_counts.repeats + EXCLUDED.repeats
  ), event_counted AS (
    INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
    SELECT f.eid, 0, count(*), 0, 0 FROM unnest($49::text[]) AS f (eid)
    JOIN counters ON counters.eid = f.eid -- after the feed counters, as gate_counts
    GROUP BY f.eid ORDER BY f.eid
    ON CONFLICT (eid) DO UPDATE SET checked_in = event_counters.checked_in + EXCLUDED.checked_in
  ), type_counted AS (
    INSERT INTO type_counts AS k (eid, ticket_type, issued, checked_in, revoked, checked_in_revoked)
    SELECT m.eid, m.ticket_type, 0, sum(m.checked_in), 0, sum(m.checked_in_revoked)
    FROM unnest($51::text[], $52::text[], $53::int[], $54::int[]) AS m (eid, ticket_type, checked_in, checked_in_revoked)
    JOIN counters ON counters.eid = m.eid -- after the event's counters
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (eid, ticket_type) DO UPDATE SET checked_in = k.checked_in + EXCLUDED.checked_in,
      checked_in_revoked = k.checked_in_revoked + EXCLUDED.checked_in_revoked
  ), day_counted AS (
    INSERT INTO day_holders AS h (eid, day, holders)
    SELECT d.eid, d.day, count(*) FROM unnest($55::text[], $56::text[]) AS d (eid, day)
    JOIN counters ON counters.eid = d.eid -- after the event's counters
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (eid, day) DO UPDATE SET holders = h.holders + EXCLUDED.holders
  ), arrived AS (
    INSERT INTO arrival_counts (eid, minute, gate_key, entries)
    SELECT eid, substr(at, 1, 16), coalesce(gate_id, ''), count(*) FROM numbered WHERE type = 'checked_in'
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (eid, minute, gate_key) DO UPDATE SET entries = arrival_counts.entries + EXCLUDED.entries
  ), minute_counted AS (
    INSERT INTO minute_counts (eid, minute, exits, repeats)
    SELECT m.eid, m.minute, sum(m.exits), sum(m.repeats) FROM (
      SELECT eid, substr(at, 1, 16) AS minute, 1 AS exits, 0 AS repeats FROM numbered WHERE type = 'checked_out'
      UNION ALL SELECT e.eid, substr(e.at, 1, 16), 0, 1 FROM unnest($40::text[], $44::text[], $46::boolean[])
        AS e (eid, at, was_inside) WHERE e.was_inside) AS m
    JOIN counters ON counters.eid = m.eid -- after the event's counters
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (eid, minute) DO UPDATE SET exits = minute_counts.exits + EXCLUDED.exits,
      repeats = minute_counts.repeats + EXCLUDED.repeats
  )
  INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.webhook_id, n.message_type, n.data,
    n.position, n.occurred_at, 'pending', n.occurred_at
  FROM numbered n
  JOIN webhook_subscriptions s ON s.type IN (n.message_type, '*') AND s.eid_key IN (n.eid, '')`;

/** The last of each ticket's rows the plans leave (one row per ticket, as one statement must write). */
function finalRows<T>(planned: PlannedAttempt[], pick: (plan: CheckInPlan) => T | null) {
  const last = new Map<string, { eid: string; value: T }>();
  for (const { attempt, plan } of planned) {
    const value = pick(plan);
    if (value !== null) last.set(attempt.tid, { eid: attempt.eid, value });
  }
  return [...last].map(([tid, { eid, value }]) => ({ tid, eid, value }));
}

/** The batch's one write statement and its parameters. */
export function batchWrite(
  remembered: Remembered[],
  scans: LoggedScan[],
  planned: PlannedAttempt[],
): { text: string; values: unknown[] } {
  const column = <T, V>(items: T[], pick: (item: T) => V): V[] => items.map(pick);
  const changes = planned.flatMap(({ attempt, plan }) => plan.changes.map((change) => ({ eid: attempt.eid, change })));
  const tickets = finalRows(planned, (plan) => plan.checkedInAt);
  const presence = finalRows<Presence>(planned, (plan) => plan.presence);
  const repeats = planned.filter(({ plan }) => plan.repeat);
  const entries = planned.flatMap(({ attempt, plan }) => (plan.entry === null ? [] : [{ attempt, entry: plan.entry }]));
  const typeCounts = planned.flatMap(({ plan }) => plan.typeCounts);
  const dayHolders = planned.filter(({ plan }) => plan.dayHolder !== null);
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
      // $21-$29: the changes, in order.
      column(changes, (c) => c.eid),
      column(changes, (c) => c.change.type),
      column(changes, (c) => c.change.tid),
      column(changes, (c) => c.change.at),
      column(changes, (c) => c.change.scanner_id),
      column(changes, (c) => c.change.gate_id),
      column(changes, (c) => c.change.idempotency_key),
      column(changes, (c) => (c.change.auto ? true : null)),
      column(changes, (c) => c.change.message.type),
      // $30-$35: each ticket's last entry and presence as the batch leaves them.
      column(tickets, (t) => t.tid),
      column(tickets, (t) => t.value),
      column(presence, (p) => p.tid),
      column(presence, (p) => p.eid),
      column(presence, (p) => p.value.inside),
      column(presence, (p) => p.value.checked_out_at),
      // $36-$37: entries while counted inside, by gate.
      column(repeats, (r) => r.attempt.eid),
      column(repeats, (r) => r.attempt.gate_id ?? ''),
      column(scans, (s) => s.attempt.admitted_offline === false),
      column(scans, (s) => s.attempt.manual === true),
      // $40-$46: the counted entries.
      column(entries, (e) => e.attempt.eid),
      column(entries, (e) => e.attempt.idempotency_key),
      column(entries, (e) => e.attempt.tid),
      column(entries, (e) => e.attempt.scanner_id),
      column(entries, (e) => e.entry.at),
      column(entries, (e) => e.attempt.gate_id ?? ''),
      column(entries, (e) => e.entry.wasInside),
      // $50 is the counted entries' event days, below.
      // $47-$48: each change's message.
      column(changes, (c) => JSON.stringify(c.change.message.data)),
      column(changes, (c) => c.change.message.occurred_at),
      // $49: the first entries' events.
      column(
        planned.filter(({ plan }) => plan.firstEntry),
        (p) => p.attempt.eid,
      ),
      column(entries, (e) => e.entry.day),
      // $51-$54: the ticket types' counts; $55-$56: the event days' new holders.
      column(typeCounts, (m) => m.eid),
      column(typeCounts, (m) => m.ticket_type),
      column(typeCounts, (m) => m.checked_in),
      column(typeCounts, (m) => m.checked_in_revoked),
      column(dayHolders, (p) => p.attempt.eid),
      column(dayHolders, (p) => p.plan.dayHolder),
      // $57: each remembered answer's ticket.
      column(remembered, (r) => r.attempt.tid),
    ],
  };
}
