/**
 * What the console benchmarks share: an event seeded straight into the tables, and one refresh of the
 * event's page as the console sends it.
 */
import { admin, type App, type BenchEvent, json } from './inject.ts';

export const GATES = ['north', 'south', 'east', 'west', 'vip', 'staff'];

/**
 * Seeds the event's `size` tickets (tids `<prefix><n>`), scans, feed and kept counts (`raw` runs SQL
 * with a row source `series` of n = 1..size): 90 % checked in at six gates over twelve hours, one in
 * nine of those let in again offline by another scanner; the scans name the event's enrolled scanner,
 * as real ones would.
 */
export async function seed(
  raw: (sql: string, size: number) => Promise<void>,
  target: BenchEvent,
  apiKeyId: string,
  postgres: boolean,
  size: number,
  prefix: string,
): Promise<void> {
  const { eid } = target;
  const run = (sql: string) => raw(sql, size);
  const entered = size * 0.9;
  const b = (value: boolean) => (postgres ? String(value).toUpperCase() : value ? '1' : '0');
  const at = (n: string) =>
    postgres
      ? `to_char(TIMESTAMP '2030-01-01 18:00:00' + ((${n} % 720) * INTERVAL '1 minute'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%S.000Z', '2030-01-01 18:00:00', '+' || (${n} % 720) || ' minutes')`;
  const gate = (n: string) => `CASE ${n} % 6 ${GATES.map((g, i) => `WHEN ${i} THEN '${g}'`).join(' ')} END`;
  await run(`INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, checked_in_at, ticket_token, search_name, email)
    SELECT '${prefix}' || n, '${eid}', 'Holder ' || n, 'GA', '2030-01-01T00:00:00.000Z',
           CASE WHEN n <= ${entered} THEN ${at('n')} END, 'x', 'holder ' || n, 'holder' || n || '@example.org' FROM series`);
  await run(
    `INSERT INTO presence (tid, eid, inside) SELECT '${prefix}' || n, '${eid}', ${b(true)} FROM series WHERE n <= ${entered}`,
  );
  const columns =
    'eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at, outcome, reason, replay, admitted_offline, turned_away_offline';
  const scans = (where: string, key: string, scanner: string, outcome: string, offline: boolean) =>
    `SELECT '${eid}', '${prefix}' || n, '${apiKeyId}', '${scanner}', ${gate('n')}, '${prefix}${key}' || n, ${at('n')}, ${at('n')},
       '${outcome}', NULL, ${b(false)}, ${b(offline)}, ${b(false)} FROM series WHERE ${where}`;
  const entries = scans(`n <= ${entered}`, 'in-', target.scannerId, 'valid', false);
  const again = scans(`n <= ${entered} AND n % 9 = 0`, 'again-', 'offline-phone', 'already_used', true);
  const logged = entered + entered / 9;
  if (postgres) {
    await run(`INSERT INTO scans (${columns}, log_position)
      SELECT x.*, row_number() OVER () FROM (${entries} UNION ALL ${again}) x`);
  } else {
    await run(`INSERT INTO scans (${columns}) ${entries}`);
    await run(`INSERT INTO scans (${columns}) ${again}`);
  }
  await run(`INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
    SELECT '${eid}', n, 'checked_in', '${prefix}' || n, ${at('n')}, '${target.scannerId}', ${gate('n')} FROM series WHERE n <= ${entered}`);
  // The counts the write paths keep, as they would have kept them.
  await run(`INSERT INTO change_counters (eid, last_position${postgres ? ', last_log_position' : ''})
    SELECT '${eid}', ${entered}${postgres ? `, ${logged}` : ''} FROM series WHERE n = 1
    ON CONFLICT (eid) DO UPDATE SET last_position = excluded.last_position${postgres ? ', last_log_position = excluded.last_log_position' : ''}`);
  await run(`INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT eid, gate_id, COUNT(*), 0 FROM changes WHERE eid = '${eid}' GROUP BY eid, gate_id`);
  await run(`INSERT INTO arrival_counts (eid, minute, gate_key, entries)
    SELECT eid, substr(at, 1, 16), gate_id, COUNT(*) FROM changes WHERE eid = '${eid}' GROUP BY eid, substr(at, 1, 16), gate_id`);
  await run(`INSERT INTO ticket_conflicts (tid, eid, anchor)
    SELECT tid, eid, scan_id FROM scans WHERE eid = '${eid}' AND outcome = 'valid' AND idempotency_key LIKE '${prefix}in-%'
      AND CAST(substr(tid, ${prefix.length + 1}) AS INTEGER) % 9 = 0`);
  await run(`INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
    SELECT '${eid}', ${size}, ${entered}, 0, ${entered / 9} FROM series WHERE n = 1
    ON CONFLICT (eid) DO UPDATE SET issued = event_counters.issued + excluded.issued,
      checked_in = event_counters.checked_in + excluded.checked_in, conflicts = excluded.conflicts`);
}

/** One console refresh: the live part, and every SLOW_EVERY-th time the slow part too. */
export async function refresh(
  app: App,
  eid: string,
  slow: boolean,
  headers: Record<string, string> = admin,
): Promise<void> {
  const path = `/admin/v1/events/${eid}`;
  const get = (url: string) => json(app.inject({ method: 'GET', url, headers }));
  await Promise.all([
    get(path),
    get(`${path}/occupancy`),
    get(`${path}/arrivals`),
    get(`${path}/scans/recent?limit=50&include=holder_name`),
    ...(slow
      ? [
          get(`${path}/scanners`),
          get(`${path}/conflicts?limit=20`),
          get(`${path}/enrollment-tokens`),
          get(`${path}/deliveries?limit=1`),
        ]
      : []),
  ]);
}
