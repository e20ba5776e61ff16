import type { AnnulRefusal } from '@ticket-issuer/protocol';
import {
  ANNUL_ENTRY_SQL,
  ANNUL_SCANS_SQL,
  type AnnulAttempt,
  type AnnulResult,
  type AnnulSeen,
  ARRIVAL_BACK_SQL,
  BACK_TO_LAST_ENTRY_SQL,
  BACK_WHERE_MOVES_LEAVE_SQL,
  ENTRY_BY_KEY_SQL,
  GATE_ENTRY_BACK_SQL,
  LATEST_ENTRY_SQL,
  SCAN_BY_ID_SQL,
  SCAN_BY_KEY_SQL,
} from '../annul.ts';
import { minuteOf } from '../counters.ts';
import { BUMP_MINUTE_COUNTS_SQL } from '../minute-counts.ts';
import { ENTRIES_SQL } from '../entries.ts';
import { annulledMessage } from '../outbox-data.ts';
import { TICKET_COLUMNS_SQL } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import { bumpCounters, bumpTypeCounts } from './counters.ts';
import { DAY_HOLDER_BACK_SQL, typeCountsMoved } from '../report-counts.ts';
import { appendChange } from './feed.ts';
import { all, type Db, numbered, one, type Tx } from './queries.ts';

const SCAN_BY_ID = numbered(SCAN_BY_ID_SQL);
const SCAN_BY_KEY = numbered(SCAN_BY_KEY_SQL);
const ENTRY_BY_KEY = numbered(ENTRY_BY_KEY_SQL);
const LATEST_ENTRY = numbered(LATEST_ENTRY_SQL);
const ANNUL_ENTRY = numbered(ANNUL_ENTRY_SQL);
const ANNUL_SCANS = numbered(ANNUL_SCANS_SQL);
const BACK_TO_LAST_ENTRY = numbered(BACK_TO_LAST_ENTRY_SQL);
const BACK_WHERE_MOVES_LEAVE = numbered(BACK_WHERE_MOVES_LEAVE_SQL);
const GATE_ENTRY_BACK = numbered(GATE_ENTRY_BACK_SQL);
const ARRIVAL_BACK = numbered(ARRIVAL_BACK_SQL);
const BUMP_MINUTE_COUNTS = numbered(BUMP_MINUTE_COUNTS_SQL);
const ENTRIES = numbered(ENTRIES_SQL);
const DAY_HOLDER_BACK = numbered(DAY_HOLDER_BACK_SQL);

interface ScanLine {
  tid: string;
  scanner_id: string;
  idempotency_key: string;
  outcome: string;
}

interface EntryRow {
  scanner_id: string;
  scanned_at: string;
  gate_key: string;
  was_inside: boolean;
  annulled_at: string | null;
  day: string | null;
}

/**
 * Annuls an entry in one transaction (see store/annul.ts), if `judge` lets it. The ticket's row is
 * locked first, as a check-in locks it (after its key), then its presence, then the feed's counter and
 * the kept counts: the lock order of every writer, so an annul and a scan of the same ticket on two
 * instances wait on each other in one order and end consistent.
 */
export function annulEntry(
  tx: Tx,
  attempt: AnnulAttempt,
  judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal,
): Promise<AnnulResult> {
  return tx(async (db): Promise<AnnulResult> => {
    const { target } = attempt;
    const scan =
      'scan_id' in target
        ? await one<ScanLine>(db, SCAN_BY_ID, [attempt.eid, target.scan_id])
        : await one<ScanLine>(db, SCAN_BY_KEY, [
            attempt.eid,
            target.idempotency_key,
            attempt.eid,
            target.idempotency_key,
          ]);
    if (scan === null || ('scanner_id' in target && scan.scanner_id !== target.scanner_id))
      return { kind: 'not_found' };
    await db.query(`SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = $1 FOR UPDATE`, [scan.tid]);
    const ticketOf = async () =>
      (await one<TicketRecord>(db, `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = $1`, [scan.tid]))!;
    const entriesOf = async (d: Db) =>
      (await all<{ scanned_at: string }>(d, ENTRIES, [scan.tid])).map((row) => row.scanned_at);
    const entry = await one<EntryRow>(db, ENTRY_BY_KEY, [scan.tid, scan.idempotency_key]);
    if (entry?.annulled_at != null) {
      return { kind: 'annulled', ticket: await ticketOf(), entries: await entriesOf(db), again: true };
    }
    const isEntry = scan.outcome === 'valid' && entry !== null;
    const latest = await one<{ idempotency_key: string }>(db, LATEST_ENTRY, [scan.tid]);
    const presence = await one<{ inside: boolean }>(db, 'SELECT inside FROM presence WHERE tid = $1 FOR UPDATE', [
      scan.tid,
    ]);
    const outcome = judge({
      isEntry,
      latest: isEntry && latest?.idempotency_key === scan.idempotency_key && presence?.inside === true,
      scanned_at: entry?.scanned_at ?? '',
    });
    if (outcome !== 'annulled') return { kind: 'refused', reason: outcome };
    const done = entry!;
    await db.query(ANNUL_ENTRY, [attempt.annulled_at, scan.tid, scan.idempotency_key]);
    await db.query(ANNUL_SCANS, [attempt.annulled_at, attempt.eid, scan.tid, scan.idempotency_key]);
    const before = (await one<{ scanned_at: string }>(db, LATEST_ENTRY, [scan.tid]))?.scanned_at ?? null;
    await db.query(BACK_TO_LAST_ENTRY, [before, scan.tid]);
    // Where the remaining moves put the holder: unused (no presence), inside or out by scan time.
    let stillInside = false;
    if (before === null) await db.query('DELETE FROM presence WHERE tid = $1', [scan.tid]);
    else
      stillInside = (await one<{ inside: boolean }>(db, BACK_WHERE_MOVES_LEAVE, [before, scan.tid]))?.inside === true;
    const gate = done.gate_key === '' ? null : done.gate_key;
    // The feed's counter, then the kept counts: the lock order of every writer (see counters.ts).
    await appendChange(
      db,
      attempt.eid,
      'annulled',
      scan.tid,
      attempt.annulled_at,
      { scanner_id: done.scanner_id, gate_id: gate, idempotency_key: scan.idempotency_key },
      annulledMessage(
        { eid: attempt.eid, tid: scan.tid, scanner_id: done.scanner_id, gate_id: gate },
        attempt.annulled_at,
        attempt.received_at,
      ),
    );
    await db.query(GATE_ENTRY_BACK, [stillInside ? 1 : 0, attempt.eid, done.gate_key]);
    await db.query(ARRIVAL_BACK, [attempt.eid, minuteOf(done.scanned_at), done.gate_key]);
    if (done.was_inside) await db.query(BUMP_MINUTE_COUNTS, [attempt.eid, minuteOf(done.scanned_at), 0, -1]);
    if (before === null) await bumpCounters(db, attempt.eid, { checked_in: -1 });
    const ticket = await ticketOf();
    if (before === null)
      await bumpTypeCounts(db, typeCountsMoved({ ...ticket, checked_in_at: done.scanned_at }, ticket));
    if (done.day !== null) await db.query(DAY_HOLDER_BACK, [attempt.eid, done.day, scan.tid]);
    return { kind: 'annulled', ticket, entries: await entriesOf(db), again: false };
  });
}
