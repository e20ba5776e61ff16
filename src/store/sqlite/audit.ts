import { auditWritten, outsideAudit, type PendingAudit } from '../audit-context.ts';
import { auditPage, type AuditStore, auditValues, insertAuditSql, listAuditSql } from '../audit-store.ts';
import type { Row } from '../rows.ts';
import type { SqliteContext } from './context.ts';

/** Inserts an admin write's entry in the transaction under way (its change's), and marks it written. */
export function insertPendingAudit(c: SqliteContext, pending: PendingAudit): void {
  c.statement(insertAuditSql(pending)).run(...auditValues(pending.record, pending.eventOf));
  auditWritten(pending);
}

/** The audit trail on SQLite. */
export function sqliteAudit(c: SqliteContext): AuditStore {
  return {
    // Outside any request's pending entry: this insert is the entry, not a change to record.
    append: (entry) =>
      outsideAudit(() => c.tx(() => void c.statement(insertAuditSql(null)).run(...auditValues(entry)))),
    list: async (query) => {
      const { sql, values } = listAuditSql(query);
      return auditPage(c.all<Row>(sql, ...values), query.limit);
    },
  };
}
