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
import { ENTRIES_SQL } from '../entries.ts';
import { annulledMessage } from '../outbox-data.ts';
import { TICKET_COLUMNS_SQL, toTicket } from '../rows.ts';
import type { TicketRecord } from '../store.ts';
import type { SqliteContext } from './context.ts';
import { bumpCounters, bumpTypeCounts, countRepeat } from './counters.ts';
import { DAY_HOLDER_BACK_SQL, typeCountsMoved } from '../report-counts.ts';
import { appendChange } from './feed.ts';

interface ScanLine {
  tid: string;
  scanner_id: string;
  gate_id: string | null;
  idempotency_key: string;
  outcome: string;
}

interface EntryRow {
  tid: string;
  scanner_id: string;
  scanned_at: string;
  gate_key: string;
  was_inside: number;
  annulled_at: string | null;
  day: string | null;
}

/** Annuls an entry in one transaction (see store/annul.ts), if `judge` lets it. */
export function annulEntry(
  c: SqliteContext,
  attempt: AnnulAttempt,
  judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal,
): Promise<AnnulResult> {
  return c.tx((): AnnulResult => {
    const { target } = attempt;
    const scan =
      'scan_id' in target
        ? c.one<ScanLine>(SCAN_BY_ID_SQL, attempt.eid, target.scan_id)
        : c.one<ScanLine>(SCAN_BY_KEY_SQL, attempt.eid, target.idempotency_key, attempt.eid, target.idempotency_key);
    // A key this scanner never used, another scanner's key included: nothing to annul.
    if (scan === null || ('scanner_id' in target && scan.scanner_id !== target.scanner_id))
      return { kind: 'not_found' };
    const ticketOf = () =>
      toTicket(c.one<TicketRecord>(`SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ?`, scan.tid)!);
    const entriesOf = () => c.all<{ scanned_at: string }>(ENTRIES_SQL, scan.tid).map((row) => row.scanned_at);
    const entry = c.one<EntryRow>(ENTRY_BY_KEY_SQL, scan.tid, scan.idempotency_key);
    if (entry?.annulled_at != null) return { kind: 'annulled', ticket: ticketOf(), entries: entriesOf(), again: true };
    const isEntry = scan.outcome === 'valid' && entry !== null;
    const latest = c.one<{ idempotency_key: string }>(LATEST_ENTRY_SQL, scan.tid);
    const inside = c.one<{ inside: number }>('SELECT inside FROM presence WHERE tid = ?', scan.tid)?.inside === 1;
    const outcome = judge({
      isEntry,
      latest: isEntry && latest?.idempotency_key === scan.idempotency_key && inside,
      scanned_at: entry?.scanned_at ?? '',
    });
    if (outcome !== 'annulled') return { kind: 'refused', reason: outcome };
    const done = entry!;
    c.run(ANNUL_ENTRY_SQL, attempt.annulled_at, scan.tid, scan.idempotency_key);
    c.run(ANNUL_SCANS_SQL, attempt.annulled_at, attempt.eid, scan.tid, scan.idempotency_key);
    const before = c.one<{ scanned_at: string }>(LATEST_ENTRY_SQL, scan.tid)?.scanned_at ?? null;
    c.run(BACK_TO_LAST_ENTRY_SQL, before, scan.tid);
    // Where the remaining moves put the holder: unused (no presence), inside or out by scan time.
    const stillInside =
      before === null
        ? (c.run('DELETE FROM presence WHERE tid = ?', scan.tid), false)
        : c.one<{ inside: number }>(BACK_WHERE_MOVES_LEAVE_SQL, before, scan.tid)?.inside === 1;
    if (before === null) bumpCounters(c, attempt.eid, { checked_in: -1 });
    const gate = done.gate_key === '' ? null : done.gate_key;
    appendChange(
      c,
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
    c.run(GATE_ENTRY_BACK_SQL, Number(stillInside), attempt.eid, done.gate_key);
    c.run(ARRIVAL_BACK_SQL, attempt.eid, minuteOf(done.scanned_at), done.gate_key);
    if (done.was_inside === 1) countRepeat(c, attempt.eid, done.scanned_at, -1);
    const ticket = ticketOf();
    if (before === null) bumpTypeCounts(c, typeCountsMoved({ ...ticket, checked_in_at: done.scanned_at }, ticket));
    if (done.day !== null) c.run(DAY_HOLDER_BACK_SQL, attempt.eid, done.day, scan.tid);
    return { kind: 'annulled', ticket, entries: entriesOf(), again: false };
  });
}
