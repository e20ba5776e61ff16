import type {
  ApiKeyRecord,
  CheckInAttempt,
  CheckInDecider,
  CheckInResult,
  CheckInVerdict,
  GateRecord,
  Occupancy,
  Presence,
  PresenceDecider,
  ScanLogPage,
  TicketRecord,
} from '../store.ts';
import { keyRefusal } from '../key-standing.ts';
import { type KnownAttempt, replayOrConflict } from '../replay.ts';
import {
  type CountRow,
  GATE_COUNTS_SQL,
  occupancyOf,
  toGate,
  type Row,
  SCAN_INSERT_COLUMNS,
  scanLogSql,
  scanLogPage,
  TICKET_COLUMNS_SQL,
  toTicket,
  scanValues,
} from '../rows.ts';
import type { SqliteContext } from './context.ts';
import { type CheckInPlan, type HolderRows, planCheckIn } from '../../domain/check-in-plan.ts';
import { UPSERT_PRESENCE_SQL } from '../entries.ts';
import { appendChange } from './feed.ts';
import { fanOutConflicts } from './outbox.ts';
import { mayConflict } from '../conflicts.ts';
import { bumpCounters, bumpTypeCounts, countDayHolder, countRepeat, recordConflicts } from './counters.ts';
import { type LateExit, NOT_INSIDE_SQL } from '../late-exit.ts';
import { ENTRIES_SQL, entryValues, INSERT_ENTRY_SQL } from '../entries.ts';
import { GATE_COUNTS } from '../kept-counts.ts';

/** One check-in, atomic on its own; runs as a unit of the store's group commit (see GroupCommit). */
export function checkIn(c: SqliteContext, attempt: CheckInAttempt, decide: CheckInDecider): CheckInResult {
  return recordAttempt(c, attempt, (ticket) => decide(ticket, gateOf(c, attempt), entriesOf(c, ticket)));
}

/** The `scanned_at` of the ticket's counted entries (not annulled), read in the attempt's transaction. */
function entriesOf(c: SqliteContext, ticket: TicketRecord | null): string[] {
  if (ticket === null || ticket.checked_in_at === null) return [];
  return c.all<{ scanned_at: string }>(ENTRIES_SQL, ticket.tid).map((row) => row.scanned_at);
}

/** The declared gate the attempt names, read in its transaction (null: none named, or not declared). */
function gateOf(c: SqliteContext, attempt: CheckInAttempt): GateRecord | null {
  if (attempt.gate_id === null) return null;
  const row = c.one<Row>('SELECT * FROM gates WHERE eid = ? AND gate_id = ?', attempt.eid, attempt.gate_id);
  return row ? toGate(row) : null;
}

/** An exit scan, or an entry of an event with re-entry: decided with the holder's presence known. */
export function withPresence(c: SqliteContext, attempt: CheckInAttempt, decide: PresenceDecider): CheckInResult {
  return recordAttempt(c, attempt, (ticket, rows) =>
    decide(ticket, rows?.presence ?? null, gateOf(c, attempt), entriesOf(c, ticket)),
  );
}

function presenceOf(c: SqliteContext, tid: string): Presence | null {
  const row = c.one<{ inside: number; checked_out_at: string | null }>(
    'SELECT inside, checked_out_at FROM presence WHERE tid = ?',
    tid,
  );
  return row ? { inside: row.inside === 1, checked_out_at: row.checked_out_at } : null;
}

/** The ticket's rows a plan moves (see check-in-plan.ts), read in the attempt's transaction. */
function holderRows(c: SqliteContext, ticket: TicketRecord): HolderRows {
  return {
    ticket,
    presence: presenceOf(c, ticket.tid),
    notInside: c.all<LateExit>(NOT_INSIDE_SQL, ticket.eid, ticket.tid),
  };
}

export async function getPresence(c: SqliteContext, tid: string): Promise<Presence | null> {
  return presenceOf(c, tid);
}

export async function getEntries(c: SqliteContext, tid: string): Promise<string[]> {
  return c.all<{ scanned_at: string }>(ENTRIES_SQL, tid).map((row) => row.scanned_at);
}

export async function occupancy(c: SqliteContext, eid: string): Promise<Occupancy> {
  return occupancyOf(c.all<CountRow>(GATE_COUNTS_SQL, eid));
}

/**
 * An attempt (entry or exit) in the caller's transaction: the key's standing, a replay or conflict
 * of a known idempotency key, else the decision, its plan applied to the ticket's rows, the remembered
 * answer and the scan log.
 */
function recordAttempt(
  c: SqliteContext,
  attempt: CheckInAttempt,
  decide: (ticket: TicketRecord | null, rows: HolderRows | null) => CheckInVerdict,
): CheckInResult {
  const key = c.one<ApiKeyRecord>(
    'SELECT revoked_at, expires_at FROM api_keys WHERE api_key_id = ?',
    attempt.api_key_id,
  );
  const refusal = keyRefusal(key, attempt.received_at);
  if (refusal) return refusal;
  const known = c.one<KnownAttempt>(
    'SELECT fingerprint, http_status, body, outcome, reason FROM idempotency_keys WHERE eid = ? AND idempotency_key = ?',
    attempt.eid,
    attempt.idempotency_key,
  );
  if (known) {
    const result = replayOrConflict(attempt, known);
    // One line per scan, whatever the retries: a replay writes none (a conflict is another attempt).
    if (!result.replay) logScan(c, attempt, result.outcome, result.reason, false);
    return result.result;
  }
  const ticket = toTicket(c.one<TicketRecord>(`SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ?`, attempt.tid));
  const rows = ticket === null ? null : holderRows(c, ticket);
  const verdict = decide(ticket, rows);
  applyPlan(c, attempt, planCheckIn(rows, attempt, verdict).plan);
  c.run(
    `INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at, tid)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    attempt.eid,
    attempt.idempotency_key,
    attempt.fingerprint,
    verdict.answer.http_status,
    JSON.stringify(verdict.answer.body),
    verdict.outcome,
    verdict.reason,
    attempt.received_at,
    attempt.tid,
  );
  logScan(c, attempt, verdict.outcome, verdict.reason, false);
  if (mayConflict(verdict.outcome, attempt.admitted_offline)) {
    fanOutConflicts(c, attempt.eid, [attempt.idempotency_key], attempt.received_at);
    recordConflicts(c, attempt.eid, [attempt.idempotency_key]);
  }
  return { kind: 'answered', answer: verdict.answer, replay: false };
}

/** Applies a check-in's plan (see check-in-plan.ts) in the caller's transaction. */
function applyPlan(c: SqliteContext, attempt: CheckInAttempt, plan: CheckInPlan): void {
  if (plan.checkedInAt !== null)
    c.run('UPDATE tickets SET checked_in_at = ? WHERE tid = ?', plan.checkedInAt, attempt.tid);
  if (plan.presence !== null) {
    c.run(UPSERT_PRESENCE_SQL, attempt.tid, attempt.eid, Number(plan.presence.inside), plan.presence.checked_out_at);
  }
  if (plan.entry !== null) {
    const values = entryValues(attempt, plan.entry);
    c.run(INSERT_ENTRY_SQL, ...values.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    if (plan.entry.wasInside) countRepeat(c, attempt.eid, plan.entry.at, 1);
  }
  if (plan.firstEntry) bumpCounters(c, attempt.eid, { checked_in: 1 });
  bumpTypeCounts(c, plan.typeCounts);
  if (plan.dayHolder !== null) countDayHolder(c, attempt.eid, plan.dayHolder);
  for (const change of plan.changes) {
    const { type, tid, at, scanner_id, gate_id, idempotency_key, auto } = change;
    const extra = {
      scanner_id: scanner_id ?? undefined,
      gate_id,
      auto,
      ...(idempotency_key ? { idempotency_key } : {}),
    };
    appendChange(c, attempt.eid, type, tid, at, extra, change.message);
  }
  if (plan.repeat) c.counts.add(GATE_COUNTS, [attempt.eid, attempt.gate_id ?? ''], { repeats: 1 });
}

export function logRefusedAttempt(c: SqliteContext, attempt: CheckInAttempt, reason: string): Promise<void> {
  return c.tx(() => logScan(c, attempt, 'refused', reason, false));
}

function logScan(
  c: SqliteContext,
  attempt: CheckInAttempt,
  outcome: string,
  reason: string | null,
  replay: boolean,
): void {
  // SQLite has no booleans: they are kept as 0 and 1.
  const values = scanValues(attempt, outcome, reason, replay).map((v) => (typeof v === 'boolean' ? Number(v) : v));
  c.run(`INSERT INTO scans (${SCAN_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ...values);
}

/**
 * The event's scan log in order, a page at a time: the cursor is the last scan_id seen (one connection
 * writes, so scans commit in scan_id order), always given, so a pager at the end can ask again later.
 */
export async function listScans(
  c: SqliteContext,
  eid: string,
  limit: number,
  after: number | null,
): Promise<ScanLogPage> {
  const rows = c.all<Row>(
    `${scanLogSql('s.scan_id')} WHERE s.eid = ? AND s.scan_id > ? ORDER BY s.scan_id LIMIT ?`,
    eid,
    after ?? 0,
    limit + 1,
  );
  return scanLogPage(rows, limit, after);
}
