import type { PendingAudit } from './audit-context.ts';
import { OWNING_EVENT_SQL } from './owning-event.ts';
import type { AuditPage, AuditQuery, AuditRecord } from './people-records.ts';
import { page, type Row } from './rows.ts';

/**
 * The audit trail (table `audit_log`): append-only. An admin write's entry is not appended here but
 * by the store's transaction that makes the change (see `audit-context.ts`); `append` is for what
 * changes nothing else (a sign-in, a failed one).
 */
export interface AuditStore {
  /** Appends one entry in a transaction of its own. */
  append(entry: AuditRecord): Promise<void>;
  /** Entries newest first (by `seq`), of one event and/or one person, a page at a time before `query.before`. */
  list(query: AuditQuery): Promise<AuditPage>;
}

const COLUMNS = 'at, user_id, actor_name, via, action, target, eid, ip, details';

/**
 * The insert of an entry (`?` placeholders, each value typed as its column for PostgreSQL's sake), its
 * event read in the same statement when the path named none; `onlyIf`, a condition on the values
 * after the entry's (PostgreSQL inserts it only if the transaction changed rows).
 */
export function insertAuditSql(pending: PendingAudit | null, onlyIf = ''): string {
  const text = 'CAST(? AS TEXT)';
  const eid = pending?.eventOf ? `COALESCE(${text}, (${OWNING_EVENT_SQL[pending.eventOf.resource]}))` : text;
  const values = [text, text, text, text, text, text, eid, text, text];
  return `INSERT INTO audit_log (${COLUMNS}) SELECT ${values.join(', ')}${onlyIf ? ` WHERE ${onlyIf}` : ''}`;
}

/** The values of `insertAuditSql`, in its order. */
export function auditValues(record: AuditRecord, eventOf: PendingAudit['eventOf'] = null): unknown[] {
  return [
    record.at,
    record.user_id,
    record.actor_name,
    record.via,
    record.action,
    record.target,
    record.eid,
    ...(eventOf ? [eventOf.id] : []),
    record.ip,
    JSON.stringify(record.details),
  ];
}

/** A page of entries, newest first (`?` placeholders: the filters' values, then `before`, then the limit + 1). */
export function listAuditSql(query: AuditQuery): { sql: string; values: unknown[] } {
  const where: string[] = ['seq < ?'];
  const values: unknown[] = [];
  if (query.eid !== null) {
    where.unshift('eid = ?');
    values.push(query.eid);
  }
  if (query.user_id !== null) {
    where.unshift('user_id = ?');
    values.push(query.user_id);
  }
  values.push(query.before ?? Number.MAX_SAFE_INTEGER, query.limit + 1);
  return {
    sql: `SELECT seq, ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`,
    values,
  };
}

/** Rows (one more than the limit, to tell whether more follow) as a page; the cursor is the last seq shown. */
export function auditPage(rows: Row[], limit: number): AuditPage {
  const entries = rows.map((row) => ({
    seq: Number(row.seq),
    at: row.at as string,
    user_id: (row.user_id as string | null) ?? null,
    actor_name: row.actor_name as string,
    via: row.via as AuditRecord['via'],
    action: row.action as string,
    target: (row.target as string | null) ?? null,
    eid: (row.eid as string | null) ?? null,
    ip: (row.ip as string | null) ?? null,
    details: JSON.parse(row.details as string) as Record<string, unknown>,
  }));
  return page(entries, limit, (entry) => String(entry.seq));
}
