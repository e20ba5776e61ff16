/**
 * Lease claims on SQLite, one shape for every outbox table (see ../lease-tables.ts): one process, so
 * the app's clock decides what is due; each claimed row gets a fresh random token.
 */
import type { LeaseClaim, LeaseTable } from '../lease-tables.ts';
import type { SqliteContext } from './context.ts';

/** A claim's lease token, fresh for each row. */
export const NEW_TOKEN = 'lower(hex(randomblob(16)))';

/** Due, and without a live lease (`?` twice: now), with the claim's own condition. */
function due(t: LeaseTable, r: LeaseClaim): string {
  return `${t.waiting} AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)${r.where ? ` AND ${r.where.sql}` : ''}`;
}

/** Whether any row is due: a read, without the write lock or a synced commit (most looks find none). */
export function anyDue(c: SqliteContext, t: LeaseTable, r: LeaseClaim): boolean {
  return (
    c.one(`SELECT 1 FROM ${t.table} WHERE ${due(t, r)} LIMIT 1`, r.now, r.now, ...(r.where?.params ?? [])) !== null
  );
}

/** Leases the first due rows, inside the caller's transaction; answers them (`returning`). */
export function leaseDue<T>(c: SqliteContext, t: LeaseTable, r: LeaseClaim): T[] {
  return c.all<T>(
    `UPDATE ${t.table} SET lease_until = ?, ${t.token} = ${NEW_TOKEN}
      WHERE ${t.key} IN (SELECT ${t.key} FROM ${t.table} WHERE ${due(t, r)} ORDER BY ${t.order} LIMIT ?)
      RETURNING ${r.returning}`,
    r.leaseUntil,
    r.now,
    r.now,
    ...(r.where?.params ?? []),
    r.limit,
  );
}

/** A claim in a transaction of its own, after a read that found something due. */
export async function claimDue<T>(c: SqliteContext, t: LeaseTable, r: LeaseClaim): Promise<T[]> {
  if (!anyDue(c, t, r)) return [];
  return c.tx(() => leaseDue<T>(c, t, r));
}
