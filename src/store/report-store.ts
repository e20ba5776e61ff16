import type { Page } from './records.ts';
import type { ReportCounts } from './report-records.ts';
import type { TicketRecord } from './ticket-records.ts';

/** A ticket as the tickets export lists it: the ticket, its counted entries, its first entry and last exit. */
export interface ExportedTicket {
  ticket: TicketRecord;
  entries: number;
  first_entry_at: string | null;
  last_exit_at: string | null;
}

/** The event report and the tickets export: reads only (the scans export pages `checkIns.listScans`). */
export interface ReportStore {
  /** The event's counts per type, per gate, per minute and per event day, in one snapshot (see report-queries.ts). */
  reportCounts(eid: string): Promise<ReportCounts>;
  /** The event's tickets in tid order, a page at a time (cursor: the last tid seen), with their entries. */
  exportTickets(eid: string, limit: number, after: string | null): Promise<Page<ExportedTicket>>;
}
