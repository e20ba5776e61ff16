/**
 * Migration 38 of both stores: the counted entries lose their index by idempotency key, and the
 * remembered answer keeps the ticket it was for (`idempotency_keys.tid`).
 *
 * A first scan wrote its idempotency key, a random value, into two B-trees: the remembered answer's
 * primary key (what a retry is found by) and the counted entry's. On SQLite each was about one WAL
 * frame a first scan of the four it wrote. Every reader of an entry by key knows the ticket by then
 * (an annul reads the scan first), so it reads the ticket's entries (`entries_by_ticket`) instead;
 * and the annul of a scanner's key, which found a `valid` scan through its entry, finds it through
 * the remembered answer's ticket (`idempotency_keys`' key, then `scans_by_outcome`). The answers
 * remembered before this version get their ticket from their entry; the others need none (their
 * scans are in `scans_by_key`).
 */

/** The ticket of each remembered answer that made a counted entry, from that entry (while it still has its key). */
const TICKETS_OF_ANSWERS = `
  UPDATE idempotency_keys AS k SET tid = e.tid FROM entries AS e
   WHERE e.eid = k.eid AND e.idempotency_key = k.idempotency_key;`;

/** SQLite drops a primary key only with its table: the entries move to a table without one, in their order. */
export const ENTRIES_KEY_SQLITE_MIGRATION = {
  version: 38,
  sql: `
    ALTER TABLE idempotency_keys ADD COLUMN tid TEXT;
    ${TICKETS_OF_ANSWERS}
    CREATE TABLE entries_by_rowid (
      eid TEXT NOT NULL, idempotency_key TEXT NOT NULL, tid TEXT NOT NULL, scanner_id TEXT NOT NULL,
      scanned_at TEXT NOT NULL, annulled_at TEXT, gate_key TEXT NOT NULL DEFAULT '',
      was_inside INTEGER NOT NULL DEFAULT 0, day TEXT
    );
    INSERT INTO entries_by_rowid (eid, idempotency_key, tid, scanner_id, scanned_at, annulled_at, gate_key, was_inside, day)
      SELECT eid, idempotency_key, tid, scanner_id, scanned_at, annulled_at, gate_key, was_inside, day
        FROM entries ORDER BY rowid;
    DROP TABLE entries;
    ALTER TABLE entries_by_rowid RENAME TO entries;
    CREATE INDEX entries_by_ticket ON entries (tid, scanned_at);
  `,
} as const;

export const ENTRIES_KEY_POSTGRES_MIGRATION = {
  version: 38,
  sql: `
    ALTER TABLE idempotency_keys ADD COLUMN tid TEXT COLLATE "C";
    ${TICKETS_OF_ANSWERS}
    ALTER TABLE entries DROP CONSTRAINT entries_pkey;
  `,
} as const;
