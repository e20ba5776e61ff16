import type { ConflictRecord, ConflictScan } from './store.ts';
import type { Row } from './rows.ts';

/**
 * The conflicts report's rule, as SQL shared by every backend (`?` placeholders; TRUE and FALSE are
 * understood by SQLite and PostgreSQL alike): a scan `d` of the ticket of the valid check-in `v`, by
 * another scanner, that got `already_used` and was admitted offline, or that said nothing of an
 * offline verdict and was scanned before `v` reached the issuer (that scanner could not have known).
 * A scanner that turned the holder away (`turned_away_offline`) let nobody in twice.
 */
const DUPLICATE = `d.eid = v.eid AND d.tid = v.tid AND d.outcome = 'already_used' AND d.replay = FALSE
  AND d.scanner_id <> v.scanner_id AND d.turned_away_offline = FALSE
  AND (d.admitted_offline = TRUE OR d.scanned_at < v.received_at)`;

/** The scanner's enrolled name beside a scan `x` (a left join: a key is never deleted, but a name may be absent). */
const NAMED = (x: string) => `LEFT JOIN api_keys k${x} ON k${x}.api_key_id = ${x}.api_key_id`;

const VALID = `v.eid = ? AND v.outcome = 'valid' AND v.replay = FALSE`;

/** A page of valid check-ins that have at least one conflicting duplicate (params: eid, after, limit + 1). */
export const CONFLICT_FIRSTS_SQL = `
  SELECT v.scan_id, v.tid, t.holder_name, v.scanner_id, kv.scanner_name, v.gate_id, v.scanned_at, v.received_at,
    v.admitted_offline
  FROM scans v JOIN tickets t ON t.tid = v.tid ${NAMED('v')}
  WHERE ${VALID} AND v.scan_id > ? AND EXISTS (SELECT 1 FROM scans d WHERE ${DUPLICATE})
  ORDER BY v.scan_id LIMIT ?`;

/** The conflicting duplicates of the valid check-ins from one scan_id to another (params: eid, from, to). */
export const CONFLICT_DUPLICATES_SQL = `
  SELECT d.tid, d.scanner_id, kd.scanner_name, d.gate_id, d.scanned_at, d.received_at, d.admitted_offline
  FROM scans v JOIN scans d ON ${DUPLICATE} ${NAMED('d')}
  WHERE ${VALID} AND v.scan_id BETWEEN ? AND ?
  ORDER BY d.scan_id`;

/** How many tickets of an event are in conflict (param: eid). */
export const CONFLICT_COUNT_SQL = `
  SELECT COUNT(DISTINCT v.tid) AS conflicts FROM scans v JOIN scans d ON ${DUPLICATE} WHERE ${VALID}`;

const toConflictScan = (row: Row): ConflictScan => ({
  scanner_id: row.scanner_id as string,
  scanner_name: (row.scanner_name as string | null) ?? null,
  gate_id: (row.gate_id as string | null) ?? null,
  scanned_at: row.scanned_at as string,
  received_at: row.received_at as string,
  // SQLite answers 0/1, PostgreSQL a boolean.
  admitted_offline: row.admitted_offline === true || row.admitted_offline === 1,
});

/** Joins each valid check-in with its duplicates, keeping the order of both. */
export function groupConflicts(firsts: Row[], duplicates: Row[]): ConflictRecord[] {
  const byTid = new Map<string, ConflictScan[]>();
  for (const row of duplicates) {
    const list = byTid.get(row.tid as string) ?? [];
    list.push(toConflictScan(row));
    byTid.set(row.tid as string, list);
  }
  return firsts.map((row) => ({
    tid: row.tid as string,
    holder_name: row.holder_name as string,
    first: toConflictScan(row),
    duplicates: byTid.get(row.tid as string) ?? [],
  }));
}
