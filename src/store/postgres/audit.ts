import type pg from 'pg';
import { auditWritten, outsideAudit, pendingAudit } from '../audit-context.ts';
import { auditPage, type AuditStore, auditValues, insertAuditSql, listAuditSql } from '../audit-store.ts';
import type { Row } from '../rows.ts';
import { numbered, type Tx } from './queries.ts';

/**
 * Rows this connection inserted, updated or deleted so far: PostgreSQL's own per-table counts of the
 * transaction under way (and of earlier ones not reported yet), so a difference is what the work
 * between two readings wrote, whatever its statements look like (a data-modifying WITH included). A
 * row an UPDATE's WHERE no longer matched once a concurrent change committed is not counted.
 */
const CHANGES_SQL = 'SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint FROM pg_stat_xact_user_tables';

async function changesSoFar(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<[string]>({ text: CHANGES_SQL, rowMode: 'array' });
  return String(rows[0]![0]);
}

/**
 * `work` in the transaction under way; while an admin write's entry is pending, the entry follows in
 * the same transaction if the work changed rows. Marked written before the insert answers, so that a
 * second transaction of the same request running at once does not write it too.
 */
export async function auditedWork<T>(client: pg.PoolClient, work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const pending = pendingAudit();
  if (pending === null) return work(client);
  const before = await changesSoFar(client);
  const result = await work(client);
  if (pending.state !== 'open') return result;
  auditWritten(pending);
  try {
    const sql = numbered(insertAuditSql(pending, `(${CHANGES_SQL}) > CAST(? AS BIGINT)`));
    const inserted = await client.query(sql, [...auditValues(pending.record, pending.eventOf), before]);
    if (inserted.rowCount === 0) pending.state = 'open';
  } catch (error) {
    pending.state = 'open';
    throw error;
  }
  return result;
}

/** The audit trail on PostgreSQL. */
export function postgresAudit(pool: pg.Pool, tx: Tx): AuditStore {
  return {
    // Outside any request's pending entry: this insert is the entry, not a change to record.
    append: (entry) =>
      outsideAudit(() => tx(async (db) => void (await db.query(numbered(insertAuditSql(null)), auditValues(entry))))),
    list: async (query) => {
      const { sql, values } = listAuditSql(query);
      return auditPage((await pool.query(numbered(sql), values)).rows as Row[], query.limit);
    },
  };
}
