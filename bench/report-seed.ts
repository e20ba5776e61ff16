/**
 * The event the report benchmark reads (bench/report.ts): BIG tickets (BENCH_REPORT_TICKETS, default
 * 1,000,000) seeded straight into the store's tables by set-based SQL, with the kept counts filled as
 * the migrations fill them.
 */
import { FILL_MINUTE_EXITS_SQL, FILL_MINUTE_REPEATS_SQL } from '../src/store/minute-counts.ts';
import { FILL_DAY_HOLDERS_SQL, FILL_TYPE_COUNTS_SQL } from '../src/store/report-count-fill.ts';

export const BIG = Number(process.env.BENCH_REPORT_TICKETS ?? 1_000_000);
export const ENTERED = Math.floor(BIG * 0.9);
const GATES = ['north', 'south', 'east', 'west'];
export type Raw = (sql: string) => Promise<void>;

/** Seeds the event's tickets, entries, exits, presence, feed, scan log and kept counts (`series`: n = 1..BIG). */
export async function seed(raw: Raw, eid: string, postgres: boolean): Promise<void> {
  const b = (value: boolean) => (postgres ? String(value).toUpperCase() : value ? '1' : '0');
  const at = (minutes: string) =>
    postgres
      ? `to_char(TIMESTAMP '2030-01-01 12:30:00' + ((${minutes}) * INTERVAL '1 minute'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%S.000Z', '2030-01-01 12:30:00', '+' || (${minutes}) || ' minutes')`;
  const entry = at('n % 720');
  // The entry's event day: Asia/Kolkata keeps +05:30 all year and the event's days start at midnight.
  const day = postgres
    ? `to_char(TIMESTAMP '2030-01-01 12:30:00' + ((n % 720 + 330) * INTERVAL '1 minute'), 'YYYY-MM-DD')`
    : `strftime('%Y-%m-%d', '2030-01-01 12:30:00', '+' || (n % 720 + 330) || ' minutes')`;
  const exit = at('n % 720 + 60');
  const gate = `CASE n % 4 ${GATES.map((g, i) => `WHEN ${i} THEN '${g}'`).join(' ')} END`;
  const entered = `n <= ${ENTERED}`;
  const out = `n <= ${ENTERED} AND n % 3 = 0`;
  await raw(`INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, checked_in_at, ticket_token, search_name, email)
    SELECT 'T' || (1000000 + n), '${eid}', 'Holder ' || n, CASE WHEN n % 5 = 0 THEN 'VIP' ELSE 'GA' END,
      '2030-01-01T00:00:00.000Z', CASE WHEN ${entered} THEN ${entry} END, 'x', 'holder ' || n, 'h' || n || '@example.org'
    FROM series`);
  await raw(`INSERT INTO presence (tid, eid, inside, checked_out_at)
    SELECT 'T' || (1000000 + n), '${eid}', CASE WHEN n % 3 = 0 THEN ${b(false)} ELSE ${b(true)} END,
      CASE WHEN n % 3 = 0 THEN ${exit} END FROM series WHERE ${entered}`);
  await raw(`INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at, gate_key, was_inside, day)
    SELECT '${eid}', 'in-' || n, 'T' || (1000000 + n), 'scanner-' || (n % 4), ${entry}, ${gate}, ${b(false)}, ${day}
    FROM series WHERE ${entered}`);
  const logColumns = `eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at, outcome,
    reason, replay, admitted_offline, turned_away_offline`;
  const lines = (where: string, key: string, time: string, outcome: string) =>
    `SELECT '${eid}', 'T' || (1000000 + n), 'key', 'scanner-' || (n % 4), ${gate}, '${key}' || n, ${time}, ${time},
      '${outcome}', NULL, ${b(false)}, ${b(false)}, ${b(false)} FROM series WHERE ${where}`;
  if (postgres) {
    await raw(`INSERT INTO scans (${logColumns}, log_position)
      SELECT x.*, row_number() OVER () FROM (${lines(entered, 'in-', entry, 'valid')}
        UNION ALL ${lines(out, 'out-', exit, 'checked_out')}) x`);
  } else {
    await raw(`INSERT INTO scans (${logColumns}) ${lines(entered, 'in-', entry, 'valid')}`);
    await raw(`INSERT INTO scans (${logColumns}) ${lines(out, 'out-', exit, 'checked_out')}`);
  }
  await raw(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', n, 'checked_in', 'T' || (1000000 + n), ${entry}, 'scanner-' || (n % 4), ${gate} FROM series WHERE ${entered}`);
  await raw(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', ${BIG} + n, 'checked_out', 'T' || (1000000 + n), ${exit}, 'scanner-' || (n % 4), ${gate} FROM series WHERE ${out}`);
  // The counts the write paths keep, as they would have kept them.
  await raw(`INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT eid, gate_id, SUM(CASE WHEN type = 'checked_in' THEN 1 ELSE 0 END), SUM(CASE WHEN type = 'checked_out' THEN 1 ELSE 0 END)
    FROM changes WHERE eid = '${eid}' GROUP BY eid, gate_id`);
  await raw(`INSERT INTO arrival_counts (eid, minute, gate_key, entries)
    SELECT eid, substr(at, 1, 16), gate_id, COUNT(*) FROM changes WHERE eid = '${eid}' AND type = 'checked_in'
    GROUP BY eid, substr(at, 1, 16), gate_id`);
  await raw(`INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
    SELECT '${eid}', ${BIG}, ${ENTERED}, 0, 0 FROM series WHERE n = 1`);
  // The report's kept counts, filled as migration 35 fills them from the rows before it.
  await raw(FILL_TYPE_COUNTS_SQL.replace(/;$/, ''));
  await raw(FILL_DAY_HOLDERS_SQL.replace(/;$/, ''));
  // The exits and re-entries per minute, as migration 36 fills them.
  await raw(FILL_MINUTE_EXITS_SQL.replace(/;$/, ''));
  await raw(FILL_MINUTE_REPEATS_SQL.replace(/;$/, ''));
}

/** Milliseconds of `work`. */
