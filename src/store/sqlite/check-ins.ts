import type {
  ApiKeyRecord,
  CheckInAttempt,
  CheckInResult,
  CheckInVerdict,
  Page,
  ScanRecord,
  TicketRecord,
} from '../store.ts';
import { keyRefusal } from '../key-standing.ts';
import { type KnownAttempt, replayOrConflict } from '../replay.ts';
import { page, type Row, SCAN_INSERT_COLUMNS, SCAN_LOG_SQL, scanValues, toScan } from '../rows.ts';
import type { SqliteContext } from './context.ts';
import { appendChange } from './feed.ts';

/** One check-in, atomic on its own; runs as a unit of the store's group commit (see GroupCommit). */
export function checkIn(
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
    logScan(c, attempt, result.outcome, result.reason, result.replay);
    return result.result;
  }
  const verdict = decide(c.one<TicketRecord>('SELECT * FROM tickets WHERE tid = ?', attempt.tid));
  if (verdict.check_in_at !== null) {
    const changed = c.run(
      'UPDATE tickets SET checked_in_at = ? WHERE tid = ? AND checked_in_at IS NULL',
      verdict.check_in_at,
      attempt.tid,
    );
    if (changed > 0) {
      appendChange(c, attempt.eid, 'checked_in', attempt.tid, verdict.check_in_at, {
        scanner_id: attempt.scanner_id,
        gate_id: attempt.gate_id,
      });
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
  return { kind: 'answered', answer: verdict.answer, replay: false };
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
  c.run(`INSERT INTO scans (${SCAN_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ...values);
}

export async function listScans(
  c: SqliteContext,
  eid: string,
  limit: number,
  after: number | null,
): Promise<Page<ScanRecord>> {
  const rows = c
    .all<Row>(
      `${SCAN_LOG_SQL} WHERE s.eid = ? AND s.scan_id > ? ORDER BY s.scan_id LIMIT ?`,
      eid,
      after ?? 0,
      limit + 1,
    )
    .map(toScan);
  return page(rows, limit, (s) => String(s.scan_id));
}
