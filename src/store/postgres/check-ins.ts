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
  scanValues,
} from '../rows.ts';
import type {
  ApiKeyRecord,
  CheckInAttempt,
  CheckInResult,
  CheckInVerdict,
  GateRecord,
  Occupancy,
  Presence,
  PresenceDecider,
  ScanLogPage,
  TicketRecord,
} from '../store.ts';
import { LOCK_IDEMPOTENCY, lockNumber } from './check-in-batch.ts';
import { type HolderRows, planCheckIn } from '../../domain/check-in-plan.ts';
import { UPSERT_PRESENCE_SQL } from '../entries.ts';
import { appendChange } from './feed.ts';
import { fanOutConflicts } from './outbox.ts';
import { mayConflict } from '../conflicts.ts';
import { bumpTypeCounts, keepCheckInCounts } from './counters.ts';
import { COUNT_DAY_HOLDER_SQL } from '../report-counts.ts';
import { BUMP_MINUTE_COUNTS_SQL } from '../minute-counts.ts';
import { minuteOf } from '../counters.ts';
import { all, type Db, numbered, one, type Tx } from './queries.ts';
import { type LateExit, NOT_INSIDE_SQL } from '../late-exit.ts';
import { ENTRIES_SQL, entryValues, INSERT_ENTRY_SQL, REPEAT_SQL } from '../entries.ts';

/** The `scanned_at` of the ticket's counted entries (not annulled), read under the ticket's row lock. */
async function entriesOf(db: Db, ticket: TicketRecord | null): Promise<string[]> {
  if (ticket === null || ticket.checked_in_at === null) return [];
  return (await all<{ scanned_at: string }>(db, ENTRIES, [ticket.tid])).map((row) => row.scanned_at);
}

/** The declared gate the attempt names, read in its transaction (null: none named, or not declared). */
async function gateOf(db: Db, attempt: CheckInAttempt): Promise<GateRecord | null> {
  if (attempt.gate_id === null) return null;
  const row = await one<Row>(db, 'SELECT * FROM gates WHERE eid = $1 AND gate_id = $2', [attempt.eid, attempt.gate_id]);
  return row ? toGate(row) : null;
}

/**
 * A check-in or an exit in a transaction of its own, decided with the holder's presence (locked for
 * the transaction): what a batch falls back to when it fails as a whole (see CheckInBatcher).
 */
export function withPresence(tx: Tx, attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
  return recordAttempt(tx, attempt, async (db, ticket, rows) =>
    decide(ticket, rows?.presence ?? null, await gateOf(db, attempt), await entriesOf(db, ticket)),
  );
}

/** The holder's presence (locked for the attempt's transaction when `forUpdate`). */
async function presenceOf(db: Db, tid: string, forUpdate = false): Promise<Presence | null> {
  const row = await one<Presence>(
    db,
    `SELECT inside, checked_out_at FROM presence WHERE tid = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [tid],
  );
  return row ? { inside: row.inside, checked_out_at: row.checked_out_at } : null;
}

/** The ticket's rows a plan moves (see check-in-plan.ts), presence locked, read under the ticket's lock. */
async function holderRows(db: Db, ticket: TicketRecord): Promise<HolderRows> {
  return {
    ticket,
    presence: await presenceOf(db, ticket.tid, true),
    notInside: await all<LateExit>(db, NOT_INSIDE, [ticket.eid, ticket.tid]),
  };
}

export function getPresence(db: Db, tid: string): Promise<Presence | null> {
  return presenceOf(db, tid);
}

export async function getEntries(db: Db, tid: string): Promise<string[]> {
  return (await all<{ scanned_at: string }>(db, ENTRIES, [tid])).map((row) => row.scanned_at);
}

/** Inside now and entries and exits per gate: the event's few counter rows, in one statement. */
export async function occupancy(db: Db, eid: string): Promise<Occupancy> {
  return occupancyOf(await all<CountRow>(db, GATE_COUNTS, [eid]));
}

/**
 * An attempt (entry or exit) in a transaction of its own: the key's standing, a replay or conflict
 * of a known idempotency key, else the decision, its plan applied to the ticket's rows, the remembered
 * answer, the scan log, and last the feed.
 */
function recordAttempt(
  tx: Tx,
  attempt: CheckInAttempt,
  decide: (db: Db, ticket: TicketRecord | null, rows: HolderRows | null) => Promise<CheckInVerdict>,
): Promise<CheckInResult> {
  return tx(async (db): Promise<CheckInResult> => {
    // Lock order is always key then ticket, so two attempts can never wait on each other in a cycle.
    await db.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_IDEMPOTENCY, lockNumber(attempt)]);
    const key = await one<ApiKeyRecord>(db, 'SELECT revoked_at, expires_at FROM api_keys WHERE api_key_id = $1', [
      attempt.api_key_id,
    ]);
    const refusal = keyRefusal(key, attempt.received_at);
    if (refusal) return refusal;
    const ticket = await one<TicketRecord>(db, `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = $1 FOR UPDATE`, [
      attempt.tid,
    ]);
    // Read committed: this statement starts after the key lock was granted, so it sees the answer
    // of any attempt with the same key that held the lock before.
    const known = await one<KnownAttempt>(
      db,
      'SELECT fingerprint, http_status, body, outcome, reason FROM idempotency_keys WHERE eid = $1 AND idempotency_key = $2',
      [attempt.eid, attempt.idempotency_key],
    );
    if (known) {
      const result = replayOrConflict(attempt, known);
      // One line per scan, whatever the retries: a replay writes none (a conflict is another attempt).
      if (!result.replay) await logScan(db, attempt, result.outcome, result.reason, false);
      return result.result;
    }
    const rows = ticket === null ? null : await holderRows(db, ticket);
    const verdict = await decide(db, ticket, rows);
    const { plan } = planCheckIn(rows, attempt, verdict);
    if (plan.checkedInAt !== null) {
      await db.query('UPDATE tickets SET checked_in_at = $1 WHERE tid = $2', [plan.checkedInAt, attempt.tid]);
    }
    if (plan.presence !== null) {
      await db.query(UPSERT_PRESENCE, [attempt.tid, attempt.eid, plan.presence.inside, plan.presence.checked_out_at]);
    }
    if (plan.entry !== null) await db.query(INSERT_ENTRY, entryValues(attempt, plan.entry));
    await db.query(
      `INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at, tid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        attempt.eid,
        attempt.idempotency_key,
        attempt.fingerprint,
        verdict.answer.http_status,
        JSON.stringify(verdict.answer.body),
        verdict.outcome,
        verdict.reason,
        attempt.received_at,
        attempt.tid,
      ],
    );
    const duplicate = mayConflict(verdict.outcome, attempt.admitted_offline);
    if (duplicate) await fanOutConflicts(db, attempt.eid, [attempt.idempotency_key], attempt.received_at);
    // Last: the feed's and the scan log's per-event lock is then held only until the commit that follows.
    await logScan(db, attempt, verdict.outcome, verdict.reason, false);
    for (const change of plan.changes) {
      const { type, tid, at, scanner_id, gate_id, idempotency_key, auto } = change;
      const extra = {
        scanner_id: scanner_id ?? undefined,
        gate_id,
        auto,
        ...(idempotency_key ? { idempotency_key } : {}),
      };
      await appendChange(db, attempt.eid, type, tid, at, extra, change.message);
    }
    // After the entry's change, which wrote the gate's row.
    if (plan.repeat) await db.query(REPEAT, [attempt.eid, attempt.gate_id ?? '']);
    if (plan.entry?.wasInside === true)
      await db.query(BUMP_MINUTE_COUNTS, [attempt.eid, minuteOf(plan.entry.at), 0, 1]);
    await keepCheckInCounts(db, attempt.eid, plan.firstEntry ? 1 : 0, duplicate ? [attempt.idempotency_key] : []);
    await bumpTypeCounts(db, plan.typeCounts);
    if (plan.dayHolder !== null) await db.query(COUNT_DAY_HOLDER, [attempt.eid, plan.dayHolder]);
    return { kind: 'answered', answer: verdict.answer, replay: false };
  });
}

const NOT_INSIDE = numbered(NOT_INSIDE_SQL);
const COUNT_DAY_HOLDER = numbered(COUNT_DAY_HOLDER_SQL);
const UPSERT_PRESENCE = numbered(UPSERT_PRESENCE_SQL);
const GATE_COUNTS = numbered(GATE_COUNTS_SQL);
const ENTRIES = numbered(ENTRIES_SQL);
const INSERT_ENTRY = numbered(INSERT_ENTRY_SQL);
const REPEAT = numbered(REPEAT_SQL);
const BUMP_MINUTE_COUNTS = numbered(BUMP_MINUTE_COUNTS_SQL);

/** Appends a refused attempt (outcome `refused`, with the reason) to the event's scan log; nothing else changes. */
export async function logRefusedAttempt(db: Db, attempt: CheckInAttempt, reason: string): Promise<void> {
  await logScan(db, attempt, 'refused', reason, false);
}

/**
 * The event's scan log in commit order, a page at a time: the cursor is the last log position seen
 * (positions commit in order, so a page never skips a scan that committed late), and is always
 * given, so a pager at the end can ask again later from there.
 */
export async function listScans(db: Db, eid: string, limit: number, after: number | null): Promise<ScanLogPage> {
  const rows = await all<Row>(
    db,
    `${scanLogSql('s.log_position')} WHERE s.eid = $1 AND s.log_position > $2 ORDER BY s.log_position LIMIT $3`,
    [eid, after ?? 0, limit + 1],
  );
  return scanLogPage(rows, limit, after);
}

/**
 * Appends a line to the event's scan log at the event's next log position, taken from its counter row
 * (locked until the caller's transaction ends, as the feed's positions are: see appendChange), so the
 * log's positions commit in order.
 */
async function logScan(
  db: Db,
  attempt: CheckInAttempt,
  outcome: string,
  reason: string | null,
  replay: boolean,
): Promise<void> {
  await db.query(
    `WITH next AS (
       INSERT INTO change_counters (eid, last_position, last_log_position) VALUES ($1, 0, 1)
       ON CONFLICT (eid) DO UPDATE SET last_log_position = change_counters.last_log_position + 1
       RETURNING last_log_position)
     INSERT INTO scans (${SCAN_INSERT_COLUMNS}, log_position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, (SELECT last_log_position FROM next))`,
    scanValues(attempt, outcome, reason, replay),
  );
}
