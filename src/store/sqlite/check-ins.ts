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
  TicketMove,
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
import { autoExitMessage, checkedInMessage, checkedOutMessage } from '../outbox-data.ts';
import { MISSED_EXIT_SQL } from '../auto-exit.ts';
import { appendChange } from './feed.ts';
import { fanOutConflicts } from './outbox.ts';
import { mayConflict } from '../conflicts.ts';
import { bumpCounters, recordConflicts } from './counters.ts';
import { LATE_EXIT_SQL, type LateExit, lateExitMessage } from '../late-exit.ts';
import { ENTRIES_SQL, entryValues, INSERT_ENTRY_SQL, REPEAT_SQL } from '../entries.ts';

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
  return recordAttempt(c, attempt, (ticket) =>
    decide(ticket, ticket === null ? null : presenceOf(c, ticket.tid), gateOf(c, attempt), entriesOf(c, ticket)),
  );
}

function presenceOf(c: SqliteContext, tid: string): Presence | null {
  const row = c.one<{ inside: number; checked_out_at: string | null }>(
    'SELECT inside, checked_out_at FROM presence WHERE tid = ?',
    tid,
  );
  return row ? { inside: row.inside === 1, checked_out_at: row.checked_out_at } : null;
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
 * of a known idempotency key, else the decision, its effect on the ticket, the remembered answer and
 * the scan log.
 */
function recordAttempt(
  c: SqliteContext,
  attempt: CheckInAttempt,
  decide: (ticket: TicketRecord | null) => CheckInVerdict,
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
  const verdict = decide(ticket);
  const move = verdict.move;
  if (move?.to === 'inside') {
    enter(c, attempt, ticket!, move, verdict.counted === true);
    if (verdict.autoExitAt !== undefined) missedAutoExit(c, attempt, verdict.autoExitAt);
  }
  if (move?.to === 'out') {
    const out = c.run(
      'UPDATE presence SET inside = 0, checked_out_at = ? WHERE tid = ? AND inside = 1',
      move.at,
      attempt.tid,
    );
    if (out > 0) {
      appendChange(
        c,
        attempt.eid,
        'checked_out',
        attempt.tid,
        move.at,
        { scanner_id: attempt.scanner_id, gate_id: attempt.gate_id },
        checkedOutMessage(attempt, move.at),
      );
    }
  }
  c.run(
    `INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    attempt.eid,
    attempt.idempotency_key,
    attempt.fingerprint,
    verdict.answer.http_status,
    JSON.stringify(verdict.answer.body),
    verdict.outcome,
    verdict.reason,
    attempt.received_at,
  );
  logScan(c, attempt, verdict.outcome, verdict.reason, false);
  if (mayConflict(verdict.outcome, attempt.admitted_offline)) {
    fanOutConflicts(c, attempt.eid, [attempt.idempotency_key], attempt.received_at);
    recordConflicts(c, attempt.eid, [attempt.idempotency_key]);
  }
  return { kind: 'answered', answer: verdict.answer, replay: false };
}

/**
 * An entry's effect, only from the state its move names (a first entry while unused, a re-entry while
 * out, a wristband's entry while inside): the ticket's last entry, the holder inside, the counted
 * entry, the feed's `checked_in` change and its webhook message. An entry while counted inside adds
 * to its gate's entries but not to occupancy (the gate's `repeats`).
 */
function enter(
  c: SqliteContext,
  attempt: CheckInAttempt,
  ticket: TicketRecord,
  move: Extract<TicketMove, { to: 'inside' }>,
  counted: boolean,
): void {
  const changed =
    move.from === 'inside'
      ? c.run(
          'UPDATE tickets SET checked_in_at = MAX(checked_in_at, ?) WHERE tid = ? AND checked_in_at IS NOT NULL',
          move.at,
          attempt.tid,
        )
      : c.run(
          'UPDATE tickets SET checked_in_at = ? WHERE tid = ? AND (checked_in_at IS NULL OR ? = 1)',
          move.at,
          attempt.tid,
          move.from === 'out' ? 1 : 0,
        );
  if (changed === 0) return;
  if (ticket.checked_in_at === null) bumpCounters(c, attempt.eid, { checked_in: 1 });
  const repeat = presenceOf(c, attempt.tid)?.inside === true;
  c.run(
    'INSERT INTO presence (tid, eid, inside) VALUES (?, ?, 1) ON CONFLICT (tid) DO UPDATE SET inside = 1',
    attempt.tid,
    attempt.eid,
  );
  if (counted)
    c.run(
      INSERT_ENTRY_SQL,
      ...entryValues(attempt, move.at, repeat).map((v) => (v === true ? 1 : v === false ? 0 : v)),
    );
  appendChange(
    c,
    attempt.eid,
    'checked_in',
    attempt.tid,
    move.at,
    { scanner_id: attempt.scanner_id, gate_id: attempt.gate_id, idempotency_key: attempt.idempotency_key },
    checkedInMessage(ticket, attempt, move.at),
  );
  if (repeat) c.run(REPEAT_SQL, attempt.eid, attempt.gate_id ?? '');
  else applyLateExit(c, attempt, move.at);
}

/** After an entry: the exit it turns into one, if any (see late-exit.ts), in the entry's transaction. */
function applyLateExit(c: SqliteContext, entry: CheckInAttempt, enteredAt: string): void {
  const exit = c.one<LateExit>(LATE_EXIT_SQL, entry.eid, entry.tid, enteredAt);
  if (exit === null) return;
  c.run('UPDATE presence SET inside = 0, checked_out_at = ? WHERE tid = ?', exit.scanned_at, entry.tid);
  appendChange(
    c,
    entry.eid,
    'checked_out',
    entry.tid,
    exit.scanned_at,
    { scanner_id: exit.scanner_id, gate_id: exit.gate_id },
    lateExitMessage(entry, exit),
  );
}

/** The automatic exit the entry missed (see MISSED_EXIT_SQL), with its change and message. */
function missedAutoExit(c: SqliteContext, entry: CheckInAttempt, at: string): void {
  if (c.run(MISSED_EXIT_SQL, at, entry.tid, entry.tid, at) === 0) return;
  const message = autoExitMessage(entry.eid, entry.tid, at, entry.received_at);
  appendChange(c, entry.eid, 'checked_out', entry.tid, at, { auto: true }, message);
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
