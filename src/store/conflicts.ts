import type { ConflictRecord, ConflictScan } from './store.ts';
import type { Row } from './rows.ts';

/** The entry rules' refusals (see decide.ts): an upload admitted offline that one refuses still counts. */
export const RULE_REFUSALS = ['not_valid_now', 'entry_limit_reached', 'too_soon'] as const;

/** The refusals as the items of an SQL list. */
const REFUSED = RULE_REFUSALS.map((o) => `'${o}'`).join(', ');

/**
 * Whether a scan just decided may be a duplicate of the report (the SQL below has the last word):
 * an `already_used` scan, or an admission made offline that the entry rules refuse. The stores record
 * conflicts (and send their messages) for these only.
 */
export const mayConflict = (outcome: string, admittedOffline: boolean | null): boolean =>
  outcome === 'already_used' || (admittedOffline === true && (RULE_REFUSALS as readonly string[]).includes(outcome));

/**
 * The conflicts report's rule, as SQL shared by every backend (`?` placeholders; TRUE and FALSE are
 * understood by SQLite and PostgreSQL alike).
 *
 * A ticket's entries are its non-replayed `valid` scans and its admissions made offline that the entry
 * rules refused (`not_valid_now`, `entry_limit_reached`, `too_soon` with `admitted_offline`): those keep
 * their refusal but count, and have the holder inside (they did go in).
 *
 * A duplicate `d` is one of two kinds of non-replayed scan:
 * - an `already_used` scan that did not turn the holder away offline (`turned_away_offline`: that
 *   scanner let nobody in twice). It collided with one entry: the ticket's latest entry recorded before
 *   it, the one that had the holder inside when `d` was decided (a ticket that re-entered has several
 *   entries; the earlier ones had ended in an exit). `d` is a conflict when it comes from another
 *   scanner than that entry and was admitted offline, or said nothing of an offline verdict and was
 *   scanned before that entry reached the issuer (that scanner could not have known);
 * - an admission made offline that the entry rules refuse: always a conflict, whoever scanned it (the
 *   holder went in against the ticket's rules). Its entry is the ticket's latest before it, if any
 *   (the one it came too soon after, or over the limit of); without one (an unused ticket let in before
 *   its `valid_from` or on a day it does not cover) it is its own entry: the holder's first way in.
 * A duplicate's `reason` is its refusal, null for `already_used`.
 */
export const COLLIDED_WITH = (d: string) => `(SELECT MAX(v.scan_id) FROM scans v
  WHERE v.eid = ${d}.eid AND v.tid = ${d}.tid AND v.outcome IN ('valid', ${REFUSED})
    AND (v.outcome = 'valid' OR v.admitted_offline = TRUE) AND v.replay = FALSE AND v.scan_id < ${d}.scan_id)`;

/** The rule's test of an `already_used` duplicate `d` against the entry `v` it collided with. */
export const CONFLICTS_WITH = (d: string, v: string) =>
  `${d}.scanner_id <> ${v}.scanner_id AND (${d}.admitted_offline = TRUE OR ${d}.scanned_at < ${v}.received_at)`;

/**
 * Which scans the index `scans_by_key` holds, for a scan `s` (bare `outcome` without one): every
 * outcome but `valid`. A first entry, most of the scan log, is found by key through its counted entry
 * instead (the remembered answer's ticket, then `scans_by_outcome`), so a check-in writes one random-key index
 * fewer. SQLite uses a partial index only for a query that states its condition word for word: each
 * query by key does, through this.
 */
export const KEPT_BY_KEY = (s?: string) => `${s === undefined ? '' : `${s}.`}outcome <> 'valid'`;

/** The outcomes a duplicate may have, as an SQL list (read by index `(eid, outcome, …)`). */
export const DUPLICATE_OUTCOMES = `('already_used', ${REFUSED})`;

/**
 * The whole rule for a scan `d` of DUPLICATE_OUTCOMES, with `v` LEFT JOINed as its collided entry
 * (`v.scan_id = COLLIDED_WITH(d)`, null when the ticket had none).
 */
export const IS_CONFLICT = (d: string, v: string) => `${d}.replay = FALSE AND (
    (${d}.outcome = 'already_used' AND ${d}.turned_away_offline = FALSE AND ${v}.scan_id IS NOT NULL
      AND ${CONFLICTS_WITH(d, v)})
    OR (${d}.outcome IN (${REFUSED}) AND ${d}.admitted_offline = TRUE))`;

/** The entry a conflicting duplicate `d` (its collided entry `v`, maybe null) is shown against: its card's anchor. */
export const ANCHOR = (d: string, v: string) => `COALESCE(${v}.scan_id, ${d}.scan_id)`;

/** A duplicate's `reason`: its refusal, null for `already_used`. */
export const DUPLICATE_REASON = (d: string) =>
  `CASE WHEN ${d}.outcome = 'already_used' THEN NULL ELSE ${d}.outcome END`;

/**
 * A page of the report, one row per duplicate (params: eid, after, limit + 1). A ticket is listed
 * once, however often it re-entered: its card's `first` is the entry its earliest conflicting
 * duplicate collided with (that duplicate itself when it is a refused admission without an entry
 * before it), whose scan_id orders the cards and is the cursor (each scan belongs to one ticket, so
 * the cursor names one card); its duplicates are every conflicting duplicate of the ticket, each once,
 * in the order they were recorded, with their `reason`. The cards come from `ticket_conflicts` by index
 * (kept where each conflicting duplicate is recorded: see counters.ts), the duplicates from each
 * card's ticket's own scans: a page costs the same however long the event's scan log is.
 */
export const CONFLICTS_PAGE_SQL = `
  WITH cards AS (
    SELECT eid, tid, anchor FROM ticket_conflicts WHERE eid = ? AND anchor > ? ORDER BY anchor LIMIT ?
  ),
  conflicts AS (
    SELECT g.anchor, g.tid, d.scan_id AS dup_id
    FROM cards g
      JOIN scans d ON d.eid = g.eid AND d.outcome IN ${DUPLICATE_OUTCOMES} AND d.tid = g.tid
      LEFT JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')}
    WHERE ${IS_CONFLICT('d', 'v')}
  )
  SELECT x.anchor, x.tid, t.holder_name,
    f.scanner_id AS first_scanner_id, kf.scanner_name AS first_scanner_name, f.gate_id AS first_gate_id,
    f.scanned_at AS first_scanned_at, f.received_at AS first_received_at, f.admitted_offline AS first_admitted_offline,
    d.scanner_id, kd.scanner_name, d.gate_id, d.scanned_at, d.received_at, d.admitted_offline,
    ${DUPLICATE_REASON('d')} AS reason
  FROM conflicts x
    JOIN scans f ON f.scan_id = x.anchor
    JOIN scans d ON d.scan_id = x.dup_id
    JOIN tickets t ON t.tid = x.tid
    LEFT JOIN api_keys kf ON kf.api_key_id = f.api_key_id
    LEFT JOIN api_keys kd ON kd.api_key_id = d.api_key_id
  ORDER BY x.anchor, x.dup_id`;

const toConflictScan = (row: Row, prefix = ''): ConflictScan => ({
  scanner_id: row[`${prefix}scanner_id`] as string,
  scanner_name: (row[`${prefix}scanner_name`] as string | null) ?? null,
  gate_id: (row[`${prefix}gate_id`] as string | null) ?? null,
  scanned_at: row[`${prefix}scanned_at`] as string,
  received_at: row[`${prefix}received_at`] as string,
  // SQLite answers 0/1, PostgreSQL a boolean.
  admitted_offline: row[`${prefix}admitted_offline`] === true || row[`${prefix}admitted_offline`] === 1,
});

/**
 * The cards of a page from its rows (in card order, a card's duplicates together): at most `limit`
 * cards; the rows of one more card only tell that there is a next page, whose cursor is the last
 * card's anchor.
 */
export function conflictCards(rows: Row[], limit: number): { items: ConflictRecord[]; next_cursor: string | null } {
  const cards: (ConflictRecord & { anchor: string })[] = [];
  for (const row of rows) {
    const anchor = String(row.anchor);
    let card = cards[cards.length - 1];
    if (card?.anchor !== anchor) {
      const first = toConflictScan(row, 'first_');
      card = { anchor, tid: row.tid as string, holder_name: row.holder_name as string, first, duplicates: [] };
      cards.push(card);
    }
    card.duplicates.push({ ...toConflictScan(row), reason: (row.reason as string | null) ?? null });
  }
  const items = cards.slice(0, limit).map(({ anchor: _, ...card }) => card);
  const more = cards.length > limit;
  return { items, next_cursor: more ? cards[limit - 1]!.anchor : null };
}
