import { KEPT_BY_KEY } from './conflicts.ts';

/**
 * Migration 37 of both stores: the index of scans by idempotency key keeps every outcome but `valid`
 * (KEPT_BY_KEY). It served three reads: a double scan's conflicts and their messages, which read only
 * duplicates, and the annul of a scanner's key, which finds a `valid` scan through its counted entry
 * now. Every first entry wrote a line into it at a random place (its key), one of the pages a check-in
 * dirties; most scans are first entries. The same SQL on SQLite and PostgreSQL.
 */
export const SCANS_BY_KEY_MIGRATION = {
  version: 37,
  sql: `
    DROP INDEX scans_by_key;
    CREATE INDEX scans_by_key ON scans (eid, idempotency_key, outcome) WHERE ${KEPT_BY_KEY()};
  `,
} as const;
