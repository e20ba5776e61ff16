/**
 * Lease claims on PostgreSQL, one shape for every outbox table (see ../lease-tables.ts): due rows are
 * locked with SKIP LOCKED, so that concurrent claims on several instances take different ones without
 * waiting on each other, and each gets a fresh random token.
 */
import type { LeaseTable } from '../lease-tables.ts';

/** A claim's lease token, fresh for each row. */
export const NEW_TOKEN = `replace(gen_random_uuid()::text, '-', '')`;

/** The SQL expressions (placeholders or the database's clock) a claim is made of. */
export interface LeaseSql {
  /** Now: `$2`, or the database's now (DB_NOW) where the database's clock decides. */
  now: string;
  leaseUntil: string;
  limit: string;
  /** A further condition on the rows (`channel = $1`). */
  where?: string;
  /** The columns the claim answers. */
  returning: string;
}

/** An UPDATE that leases the first due rows and answers them (usable as a CTE). */
export function claimSql(t: LeaseTable, s: LeaseSql): string {
  return `UPDATE ${t.table} SET lease_until = ${s.leaseUntil}, ${t.token} = ${NEW_TOKEN}
    WHERE ${t.key} IN (SELECT ${t.key} FROM ${t.table}
      WHERE ${t.waiting} AND next_attempt_at <= ${s.now} AND (lease_until IS NULL OR lease_until < ${s.now})
        ${s.where ? `AND ${s.where}` : ''}
      ORDER BY ${t.order} LIMIT ${s.limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${s.returning}`;
}
