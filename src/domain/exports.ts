/**
 * The CSV exports of an event (CONTRACT.md, "After the event: reports and exports"): its tickets and
 * its scan log, each a sequence of chunks of CSV text, one page of the store each, read only when the
 * one before has been taken (the HTTP layer streams them with backpressure), so an event of any size
 * exports in constant memory.
 */
import type { ScanRecord, Store } from '../store/store.ts';
import type { ExportedTicket } from '../store/report-store.ts';
import { type Cell, csvWriter } from './csv.ts';
import { requireEvent } from './events.ts';
import { ticketState } from './ticket-state.ts';
import { toStored, toWire } from './time.ts';

/** Rows per page read from the store: a page of tickets is about 150 KB of CSV. */
export const EXPORT_PAGE_SIZE = 1000;

export const TICKET_COLUMNS = [
  'tid',
  'holder_name',
  'email',
  'ticket_type',
  'order_ref',
  'status',
  'first_entry_at',
  'last_exit_at',
  'entries',
] as const;

export const SCAN_COLUMNS = [
  'scan_id',
  'scanned_at',
  'received_at',
  'tid',
  'holder_name',
  'outcome',
  'reason',
  'gate_id',
  'scanner_id',
  'scanner_name',
  'admitted_offline',
  'manual',
  'replay',
  'annulled_at',
] as const;

/** A ticket's row; `now` (stored form) decides whether an unused ticket has expired. */
function ticketRow({ ticket, entries, first_entry_at, last_exit_at }: ExportedTicket, now: string): Cell[] {
  // Tickets gain `order_ref` with order groups; until a ticket carries one, the cell is empty.
  const orderRef = (ticket as Partial<Record<'order_ref', string | null>>).order_ref ?? null;
  return [
    ticket.tid,
    ticket.holder_name,
    ticket.email,
    ticket.ticket_type,
    orderRef,
    ticketState(ticket, now),
    toWire(first_entry_at),
    toWire(last_exit_at),
    entries,
  ];
}

function scanRow(scan: ScanRecord): Cell[] {
  return [
    scan.scan_id,
    toWire(scan.scanned_at),
    toWire(scan.received_at),
    scan.tid,
    scan.holder_name,
    scan.outcome,
    scan.reason,
    scan.gate_id,
    scan.scanner_id,
    scan.scanner_name,
    scan.admitted_offline,
    scan.manual,
    scan.replay,
    toWire(scan.annulled_at),
  ];
}

/** A CSV export: the file name to offer, and its chunks (the first holds the header and the first page). */
export interface CsvExport {
  filename: string;
  chunks: AsyncGenerator<string, void, undefined>;
}

/** The event's tickets as CSV, in tid order. An unknown event: 404, before anything is read. */
export async function exportTickets(
  store: Store,
  eid: string,
  now: Date,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<CsvExport> {
  const event = await requireEvent(store, eid);
  const at = toStored(now);
  const csvLines = await csvWriter();
  async function* chunks(): AsyncGenerator<string, void, undefined> {
    let header = csvLines([[...TICKET_COLUMNS]]);
    let after: string | null = null;
    do {
      const page = await store.reports.exportTickets(event.eid, pageSize, after);
      yield header + csvLines(page.items.map((item) => ticketRow(item, at)));
      header = '';
      after = page.next_cursor;
    } while (after !== null);
  }
  return { filename: `${event.eid}-tickets.csv`, chunks: chunks() };
}

/** The event's scan log as CSV, in the log's order. An unknown event: 404, before anything is read. */
export async function exportScans(store: Store, eid: string, pageSize = EXPORT_PAGE_SIZE): Promise<CsvExport> {
  const event = await requireEvent(store, eid);
  const csvLines = await csvWriter();
  async function* chunks(): AsyncGenerator<string, void, undefined> {
    let header = csvLines([[...SCAN_COLUMNS]]);
    let after: number | null = null;
    for (;;) {
      const page = await store.checkIns.listScans(event.eid, pageSize, after);
      yield header + csvLines(page.items.map(scanRow));
      header = '';
      if (!page.has_more) return;
      after = Number(page.next_cursor);
    }
  }
  return { filename: `${event.eid}-scans.csv`, chunks: chunks() };
}
