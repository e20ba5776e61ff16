import type pg from 'pg';
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
import { all, numbered, type Tx } from './queries.ts';

const TYPE_COUNTS = numbered(TYPE_COUNTS_SQL);
const GATE_COUNTS = numbered(GATE_COUNTS_SQL);
const ENTRIES_PER_MINUTE = numbered(ENTRIES_PER_MINUTE_SQL);
const MINUTE_COUNTS = numbered(MINUTE_COUNTS_SQL);
const DAY_HOLDERS = numbered(DAY_HOLDERS_SQL);
const EXPORT_TICKETS = numbered(EXPORT_TICKETS_SQL);

/** The event report and the tickets export. (PostgreSQL: see ../report-store.ts.) */
export class PostgresReportStore implements ReportStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  reportCounts(eid: string): Promise<ReportCounts> {
    // One snapshot for every read: the counts agree with each other whatever commits meanwhile.
    return this.b.tx(async (db) => {
      await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const types = toTypeCounts(await all<Row>(db, TYPE_COUNTS, [eid]));
      const dayHolders = toDayHolders(await all<Row>(db, DAY_HOLDERS, [eid]));
      const gates = occupancyOf(await all<CountRow>(db, GATE_COUNTS, [eid])).gates;
      const entries = await all<Row>(db, ENTRIES_PER_MINUTE, [eid]);
      const kept = await all<Row>(db, MINUTE_COUNTS, [eid]);
      return { types, dayHolders, gates, minutes: toMinuteMoves(entries, kept) };
    });
  }

  async exportTickets(eid: string, limit: number, after: string | null): Promise<Page<ExportedTicket>> {
    const rows = await all<Row>(this.b.pool, EXPORT_TICKETS, [eid, after ?? '', limit + 1]);
    return page(rows.map(toExportedTicket), limit, (t) => t.ticket.tid);
  }
}
