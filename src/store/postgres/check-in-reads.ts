import type pg from 'pg';
import type { KnownAttempt } from '../replay.ts';
import { type Row, TICKET_COLUMNS_SQL, toGate } from '../rows.ts';
import type { ApiKeyRecord, CheckInAttempt, GateRecord, Presence, TicketRecord } from '../store.ts';
import type { LateExit } from '../late-exit.ts';
import type { HolderRows } from '../../domain/check-in-plan.ts';

/** Locks the batch's tickets in tid order (param: their tids), a statement before the read. */
export const LOCK_TICKETS_SQL = 'SELECT tid FROM tickets WHERE tid = ANY($1::text[]) ORDER BY tid FOR UPDATE';

/**
 * What a batch reads once its idempotency keys and its tickets are locked, in one statement: the
 * tickets, the holders' presence (locked, in tid order, after the tickets: every writer's order),
 * the standing of the API keys, the answers already given under the keys, the declared gates the
 * check-ins name, the tickets' exits answered `not_inside` (by index among each ticket's scans; almost
 * always none), which an entry may turn into exits, and the counted entries of the tickets used (by
 * index `entries_by_ticket`).
 */
const READ_SQL = `
  WITH locked AS (SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ANY($1::text[])),
       present AS (
         SELECT p.tid, p.inside, p.checked_out_at FROM presence p WHERE p.tid = ANY($1::text[])
          AND p.tid IN (SELECT tid FROM locked) ORDER BY p.tid FOR UPDATE),
       keys AS (SELECT api_key_id, revoked_at, expires_at FROM api_keys WHERE api_key_id = ANY($2::text[])),
       known AS (
         SELECT i.eid, i.idempotency_key, i.fingerprint, i.http_status, i.body, i.outcome, i.reason
         FROM idempotency_keys i JOIN unnest($3::text[], $4::text[]) AS k (eid, idempotency_key)
           ON i.eid = k.eid AND i.idempotency_key = k.idempotency_key),
       named AS (
         SELECT DISTINCT g.* FROM gates g JOIN unnest($5::text[], $6::text[]) AS n (eid, gate_id)
           ON g.eid = n.eid AND g.gate_id = n.gate_id),
       late AS (
         SELECT s.tid, s.scanner_id, s.gate_id, s.scanned_at, s.scan_id FROM locked l
           JOIN scans s ON s.eid = l.eid AND s.outcome = 'not_inside' AND s.tid = l.tid AND NOT s.replay),
       counted AS (
         SELECT e.tid, e.scanned_at FROM locked l JOIN entries e ON e.tid = l.tid AND e.annulled_at IS NULL
          WHERE l.checked_in_at IS NOT NULL)
  SELECT (SELECT json_agg(locked) FROM locked) AS tickets, (SELECT json_agg(present) FROM present) AS presence,
         (SELECT json_agg(keys) FROM keys) AS keys,
         (SELECT json_agg(known) FROM known) AS known, (SELECT json_agg(named) FROM named) AS gates,
         (SELECT json_agg(late ORDER BY late.scanned_at, late.scan_id) FROM late) AS late_exits,
         (SELECT json_agg(counted) FROM counted) AS entries`;

/** What the batch's transaction found. */
export interface BatchState {
  /** Each locked ticket's rows, as the batch's earlier items left them. */
  holders: Map<string, HolderRows>;
  keys: Map<string, Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'>>;
  known: Map<string, KnownAttempt>;
  /** The declared gates named, by eid and gate_id. */
  gates: Map<string, GateRecord>;
  /** The counted entries' `scanned_at`, by tid. */
  entries: Map<string, string[]>;
}

export const knownKey = (eid: string, idempotencyKey: string) => `${eid}\u0000${idempotencyKey}`;

/** Reads what the batch's attempts need, in one statement, once their keys and tickets are locked. */
export async function readState(client: pg.PoolClient, attempts: CheckInAttempt[]): Promise<BatchState> {
  const gated = attempts.filter((a) => a.gate_id !== null);
  const { rows } = await client.query<Row>(READ_SQL, [
    [...new Set(attempts.map((a) => a.tid))],
    [...new Set(attempts.map((a) => a.api_key_id))],
    attempts.map((a) => a.eid),
    attempts.map((a) => a.idempotency_key),
    gated.map((a) => a.eid),
    gated.map((a) => a.gate_id!),
  ]);
  const row = rows[0]!;
  const list = <T>(value: unknown) => (value ?? []) as T[];
  const presence = new Map(list<Presence & { tid: string }>(row.presence).map(({ tid, ...p }) => [tid, p]));
  const notInside = groupByTicket(list<LateExit & { tid: string }>(row.late_exits));
  const holders = new Map(
    list<TicketRecord>(row.tickets).map((ticket): [string, HolderRows] => [
      ticket.tid,
      { ticket, presence: presence.get(ticket.tid) ?? null, notInside: notInside.get(ticket.tid) ?? [] },
    ]),
  );
  return {
    holders,
    keys: new Map(list<ApiKeyRecord>(row.keys).map((k) => [k.api_key_id, k])),
    known: new Map(
      list<KnownAttempt & { eid: string; idempotency_key: string }>(row.known).map((k) => [
        knownKey(k.eid, k.idempotency_key),
        k,
      ]),
    ),
    gates: new Map(list<Row>(row.gates).map((g) => [knownKey(g.eid as string, g.gate_id as string), toGate(g)])),
    entries: new Map(
      [...groupByTicket(list<{ tid: string; scanned_at: string }>(row.entries))].map(([tid, rows]) => [
        tid,
        rows.map((e) => e.scanned_at),
      ]),
    ),
  };
}

function groupByTicket<T extends { tid: string }>(rows: T[]): Map<string, Omit<T, 'tid'>[]> {
  const byTid = new Map<string, Omit<T, 'tid'>[]>();
  for (const { tid, ...row } of rows) byTid.set(tid, [...(byTid.get(tid) ?? []), row]);
  return byTid;
}
