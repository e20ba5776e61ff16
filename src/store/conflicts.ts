import type { ConflictRecord, ConflictScan } from './store.ts';
import type { Row } from './rows.ts';

/**
 * The conflicts report's rule, as SQL shared by every backend (`?` placeholders; TRUE and FALSE are
 * understood by SQLite and PostgreSQL alike).
 *
 * A duplicate `d` is a non-replayed `already_used` scan that did not turn the holder away offline
 * (`turned_away_offline`: that scanner let nobody in twice). It collided with one entry: the ticket's
 * latest `valid` scan recorded before it, the one that had the holder inside when `d` was decided (a
 * ticket that re-entered has several entries; the earlier ones had ended in an exit by then). `d` is a
 * conflict when it comes from another scanner than that entry and was admitted offline, or said
 * nothing of an offline verdict and was scanned before that entry reached the issuer (that scanner
 * could not have known).
 */
export const COLLIDED_WITH = (d: string) => `(SELECT MAX(v.scan_id) FROM scans v
  WHERE v.eid = ${d}.eid AND v.tid = ${d}.tid AND v.outcome = 'valid' AND v.replay = FALSE AND v.scan_id < ${d}.scan_id)`;

/** The rule's test of a duplicate `d` against the entry `v` it collided with. */
export const CONFLICTS_WITH = (d: string, v: string) =>
  `${d}.scanner_id <> ${v}.scanner_id AND (${d}.admitted_offline = TRUE OR ${d}.scanned_at < ${v}.received_at)`;

/**
 * A page of the report, one row per duplicate (params: eid, after, limit + 1). A ticket is listed
 * once, however often it re-entered: its card's `first` is the entry its earliest conflicting
 * duplicate collided with, whose scan_id orders the cards and is the cursor (each entry belongs to
 * one ticket, so the cursor names one card); its duplicates are every conflicting duplicate of the
 * ticket, each once, in the order they were recorded. The cards come from `ticket_conflicts` by index
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
      JOIN scans d ON d.eid = g.eid AND d.outcome = 'already_used' AND d.tid = g.tid
      JOIN scans v ON v.scan_id = ${COLLIDED_WITH('d')}
    WHERE d.replay = FALSE AND d.turned_away_offline = FALSE AND ${CONFLICTS_WITH('d', 'v')}
  )
  SELECT x.anchor, x.tid, t.holder_name,
    f.scanner_id AS first_scanner_id, kf.scanner_name AS first_scanner_name, f.gate_id AS first_gate_id,
    f.scanned_at AS first_scanned_at, f.received_at AS first_received_at, f.admitted_offline AS first_admitted_offline,
    d.scanner_id, kd.scanner_name, d.gate_id, d.scanned_at, d.received_at, d.admitted_offline
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
    card.duplicates.push(toConflictScan(row));
  }
  const items = cards.slice(0, limit).map(({ anchor: _, ...card }) => card);
  const more = cards.length > limit;
  return { items, next_cursor: more ? cards[limit - 1]!.anchor : null };
}
