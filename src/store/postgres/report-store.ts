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

/** A read of the report as a JSON list of its rows; each read's one parameter is the event ($1). */
const rowsOf = (sql: string, order = '') =>
  `(SELECT coalesce(json_agg(r${order}), '[]'::json) FROM (${sql.replace(/\?/g, '$1')}) r)`;

/**
 * Every read of the report in one statement: one snapshot (a statement sees one), and one round trip
 * instead of a transaction's eight, which under load cost more than the reads themselves.
 */
const REPORT = `SELECT ${rowsOf(TYPE_COUNTS_SQL)} AS types, ${rowsOf(DAY_HOLDERS_SQL)} AS days,
  ${rowsOf(GATE_COUNTS_SQL, ' ORDER BY r.gate_key')} AS gates, ${rowsOf(ENTRIES_PER_MINUTE_SQL)} AS entries,
  ${rowsOf(MINUTE_COUNTS_SQL)} AS kept`;
const EXPORT_TICKETS = numbered(EXPORT_TICKETS_SQL);

/** The event report and the tickets export. (PostgreSQL: see ../report-store.ts.) */
export class PostgresReportStore implements ReportStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  async reportCounts(eid: string): Promise<ReportCounts> {
    const row = (
      await all<Record<'types' | 'days' | 'gates' | 'entries' | 'kept', Row[]>>(this.b.pool, REPORT, [eid])
    )[0]!;
    return {
      types: toTypeCounts(row.types),
      dayHolders: toDayHolders(row.days),
      gates: occupancyOf(row.gates as unknown as CountRow[]).gates,
      minutes: toMinuteMoves(row.entries, row.kept),
    };
  }

  async exportTickets(eid: string, limit: number, after: string | null): Promise<Page<ExportedTicket>> {
    const rows = await all<Row>(this.b.pool, EXPORT_TICKETS, [eid, after ?? '', limit + 1]);
    return page(rows.map(toExportedTicket), limit, (t) => t.ticket.tid);
  }
}
