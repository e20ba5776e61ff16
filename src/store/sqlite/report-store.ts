import type { Page } from '../store.ts';
import { MINUTE_COUNTS_SQL } from '../minute-counts.ts';
import { DAY_HOLDERS_SQL, TYPE_COUNTS_SQL } from '../report-counts.ts';
import {
  ENTRIES_PER_MINUTE_SQL,
  EXPORT_TICKETS_SQL,
  toDayHolders,
  toExportedTicket,
  toMinuteMoves,
  toTypeCounts,
} from '../report-queries.ts';
import type { ReportCounts } from '../report-records.ts';
import type { ExportedTicket, ReportStore } from '../report-store.ts';
import { type CountRow, GATE_COUNTS_SQL, occupancyOf, page, type Row } from '../rows.ts';
import type { SqliteContext } from './context.ts';

/** The event report and the tickets export. (SQLite: see ../report-store.ts.) */
export class SqliteReportStore implements ReportStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  async reportCounts(eid: string): Promise<ReportCounts> {
    const c = this.b.ctx;
    // One connection runs one statement at a time and these run back to back: one snapshot.
    return {
      types: toTypeCounts(c.all<Row>(TYPE_COUNTS_SQL, eid)),
      dayHolders: toDayHolders(c.all<Row>(DAY_HOLDERS_SQL, eid)),
      gates: occupancyOf(c.all<CountRow>(GATE_COUNTS_SQL, eid)).gates,
      minutes: toMinuteMoves(c.all<Row>(ENTRIES_PER_MINUTE_SQL, eid), c.all<Row>(MINUTE_COUNTS_SQL, eid)),
    };
  }

  async exportTickets(eid: string, limit: number, after: string | null): Promise<Page<ExportedTicket>> {
    const rows = this.b.ctx.all<Row>(EXPORT_TICKETS_SQL, eid, after ?? '', limit + 1);
    return page(rows.map(toExportedTicket), limit, (t) => t.ticket.tid);
  }
}
