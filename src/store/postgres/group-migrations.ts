import type pg from 'pg';
import { codesForEvents } from '../group-codes.ts';
import { all } from './queries.ts';

/** Gives every ticket without a short code a random one, unique within its event, 5,000 a statement. */
async function fillShortCodes(client: pg.PoolClient): Promise<void> {
  const taken = new Map<string, Set<string>>();
  let after = { eid: '', tid: '' };
  for (;;) {
    const rows = await all<{ eid: string; tid: string }>(
      client,
      'SELECT eid, tid FROM tickets WHERE (eid, tid) > ($1, $2) ORDER BY eid, tid LIMIT 5000',
      [after.eid, after.tid],
    );
    if (rows.length === 0) return;
    await client.query(
      `UPDATE tickets SET short_code = u.code FROM unnest($1::text[], $2::text[]) AS u (tid, code)
        WHERE tickets.tid = u.tid`,
      [rows.map((row) => row.tid), codesForEvents(rows, taken)],
    );
    after = rows[rows.length - 1]!;
  }
}

/**
 * Migration 34 of the PostgreSQL store, as SQLite's (see ../sqlite/group-migrations.ts). A roster
 * version is taken from the event's row of `roster_counters`, whose lock is held until the taking
 * transaction ends: versions commit in order, so a device that read version v has every lower one (the
 * feed's rule). A trigger takes it for every change of what the roster shows, after the ticket's own
 * row lock, as every writer does (the ticket, then the roster counter, then the feed's and the event's
 * counters); an import takes it first, before it inserts anything.
 */
export const GROUP_POSTGRES_MIGRATIONS: readonly {
  version: number;
  sql: string;
  fill?: (client: pg.PoolClient) => Promise<void>;
  after?: string;
}[] = [
  {
    version: 34,
    sql: `
      ALTER TABLE tickets ADD COLUMN order_ref TEXT;
      ALTER TABLE tickets ADD COLUMN short_code TEXT COLLATE "C";
      ALTER TABLE tickets ADD COLUMN roster_version BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE api_keys ADD COLUMN clock_offset_s INTEGER;
      CREATE TABLE roster_counters (eid TEXT COLLATE "C" PRIMARY KEY, last_version BIGINT NOT NULL);
      INSERT INTO roster_counters (eid, last_version) SELECT eid, 0 FROM events;
      CREATE INDEX tickets_by_order ON tickets (eid, order_ref, tid) WHERE order_ref IS NOT NULL;
      CREATE INDEX tickets_by_roster ON tickets (eid, roster_version, tid);
      CREATE FUNCTION tickets_roster_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO roster_counters (eid, last_version) VALUES (NEW.eid, 1)
          ON CONFLICT (eid) DO UPDATE SET last_version = roster_counters.last_version + 1
          RETURNING last_version INTO NEW.roster_version;
        RETURN NEW;
      END $$;
      CREATE TRIGGER tickets_roster_changed
        BEFORE UPDATE OF holder_name, ticket_type, order_ref, attention, checkin_text, revoked_at ON tickets
        FOR EACH ROW WHEN (OLD.holder_name IS DISTINCT FROM NEW.holder_name
          OR OLD.ticket_type IS DISTINCT FROM NEW.ticket_type OR OLD.order_ref IS DISTINCT FROM NEW.order_ref
          OR OLD.attention IS DISTINCT FROM NEW.attention OR OLD.checkin_text IS DISTINCT FROM NEW.checkin_text
          OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at)
        EXECUTE FUNCTION tickets_roster_stamp();
    `,
    fill: fillShortCodes,
    after: 'CREATE UNIQUE INDEX tickets_by_short_code ON tickets (eid, short_code);',
  },
];
