import type pg from 'pg';
import { searchKey, searchWords } from '../search-key.ts';
import { all } from './queries.ts';
import { APPLE_PASS_POSTGRES_MIGRATIONS } from './apple-pass-migrations.ts';
import { REPORT_MIGRATION } from '../report-migration.ts';
import { SCANS_BY_KEY_MIGRATION } from '../scans-by-key-migration.ts';
import { ENTRIES_KEY_POSTGRES_MIGRATION } from '../entries-key-migration.ts';
import { DELIVERY_COUNT_POSTGRES_MIGRATIONS } from './delivery-count-migrations.ts';
import { GROUP_POSTGRES_MIGRATIONS } from './group-migrations.ts';
import { REPORT_COUNT_POSTGRES_MIGRATIONS } from './report-count-migrations.ts';

/** A schema change: its SQL, then (for data SQL cannot compute) `fill` and the SQL that follows it. */
interface PostgresMigration {
  version: number;
  sql: string;
  fill?: (client: pg.PoolClient) => Promise<void>;
  after?: string;
}

/**
 * Versioned schema changes of the PostgreSQL store, applied in order at start. Never edit a shipped one.
 * The tables mirror the SQLite store's column for column. Ids and instants are `COLLATE "C"` so they
 * order and compare byte-wise, as in SQLite, whatever the database's locale.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE events (
        eid TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, event_date TEXT COLLATE "C" NOT NULL,
        ends_at TEXT COLLATE "C", created_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE tickets (
        tid TEXT COLLATE "C" PRIMARY KEY, eid TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
        holder_name TEXT NOT NULL, ticket_type TEXT NOT NULL, issued_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT COLLATE "C", checked_in_at TEXT COLLATE "C", revoked_at TEXT COLLATE "C",
        revoke_reason TEXT, ticket_token TEXT NOT NULL
      );
      CREATE INDEX tickets_by_event ON tickets (eid, tid);
      CREATE TABLE enrollment_tokens (
        token_id TEXT COLLATE "C" PRIMARY KEY, token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        eid TEXT COLLATE "C" NOT NULL REFERENCES events (eid), gate_id TEXT,
        expires_at TEXT COLLATE "C" NOT NULL, key_expires_at TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL, used_at TEXT COLLATE "C", revoked_at TEXT COLLATE "C"
      );
      CREATE TABLE api_keys (
        api_key_id TEXT COLLATE "C" PRIMARY KEY, key_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        eid TEXT COLLATE "C" NOT NULL REFERENCES events (eid), gate_id TEXT, scanner_id TEXT NOT NULL,
        scanner_name TEXT, scanner_platform TEXT,
        token_id TEXT COLLATE "C" NOT NULL REFERENCES enrollment_tokens (token_id),
        enrolled_at TEXT COLLATE "C" NOT NULL, expires_at TEXT COLLATE "C" NOT NULL,
        last_seen_at TEXT COLLATE "C", revoked_at TEXT COLLATE "C"
      );
      CREATE INDEX api_keys_by_event ON api_keys (eid, api_key_id);
      CREATE TABLE idempotency_keys (
        eid TEXT COLLATE "C" NOT NULL, idempotency_key TEXT COLLATE "C" NOT NULL, fingerprint TEXT NOT NULL,
        http_status INTEGER NOT NULL, body TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT,
        created_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (eid, idempotency_key)
      );
      CREATE TABLE scans (
        scan_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, eid TEXT COLLATE "C" NOT NULL,
        tid TEXT COLLATE "C" NOT NULL, api_key_id TEXT COLLATE "C" NOT NULL, scanner_id TEXT NOT NULL,
        gate_id TEXT, idempotency_key TEXT COLLATE "C" NOT NULL, scanned_at TEXT COLLATE "C" NOT NULL,
        received_at TEXT COLLATE "C" NOT NULL, outcome TEXT NOT NULL, reason TEXT, replay BOOLEAN NOT NULL
      );
      CREATE INDEX scans_by_event ON scans (eid, scan_id);
      CREATE TABLE signing_keys (
        kid TEXT COLLATE "C" PRIMARY KEY, public_jwk TEXT NOT NULL, private_key_enc TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL, retired_at TEXT COLLATE "C", removed_at TEXT COLLATE "C"
      );
    `,
  },
  {
    // As SQLite's version 2: the changes feed, admitted_offline, the conflicts report's index, and
    // existing check-ins and revocations copied into the feed.
    version: 2,
    sql: `
      ALTER TABLE scans ADD COLUMN admitted_offline BOOLEAN NOT NULL DEFAULT false;
      CREATE INDEX scans_by_outcome ON scans (eid, outcome, tid);
      CREATE TABLE changes (
        eid TEXT COLLATE "C" NOT NULL, position BIGINT NOT NULL, type TEXT NOT NULL,
        tid TEXT COLLATE "C" NOT NULL, at TEXT COLLATE "C" NOT NULL, scanner_id TEXT, gate_id TEXT, jti TEXT,
        PRIMARY KEY (eid, position)
      );
      CREATE TABLE change_counters (eid TEXT COLLATE "C" PRIMARY KEY, last_position BIGINT NOT NULL);
      INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
        SELECT eid, ROW_NUMBER() OVER (PARTITION BY eid ORDER BY at, type, tid), type, tid, at, scanner_id, gate_id
        FROM (
          SELECT t.eid, 'checked_in' AS type, t.tid, t.checked_in_at AS at,
            COALESCE(s.scanner_id, '') AS scanner_id, s.gate_id
          FROM tickets t LEFT JOIN scans s ON s.scan_id = (
            SELECT MIN(scan_id) FROM scans WHERE tid = t.tid AND outcome = 'valid' AND NOT replay)
          WHERE t.checked_in_at IS NOT NULL
          UNION ALL
          SELECT eid, 'revoked', tid, revoked_at, NULL, NULL FROM tickets WHERE revoked_at IS NOT NULL
        ) AS existing;
      INSERT INTO change_counters (eid, last_position) SELECT eid, MAX(position) FROM changes GROUP BY eid;
    `,
  },
  {
    // As SQLite's version 3: console sessions of the organizer, by the hash of the session id.
    version: 3,
    sql: `
      CREATE TABLE admin_sessions (
        session_hash TEXT COLLATE "C" PRIMARY KEY, admin_token_tag TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        last_seen_at TEXT COLLATE "C" NOT NULL, expires_at TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
    `,
  },
  {
    // As SQLite's version 4: a scan turned away offline is told apart from one that said nothing.
    version: 4,
    sql: `ALTER TABLE scans ADD COLUMN turned_away_offline BOOLEAN NOT NULL DEFAULT false;`,
  },
  {
    // As SQLite's version 5: event settings and the gates declared per event.
    version: 5,
    sql: `
      ALTER TABLE events ADD COLUMN reentry BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE events ADD COLUMN capacity INTEGER;
      CREATE TABLE gates (
        eid TEXT COLLATE "C" NOT NULL REFERENCES events (eid), gate_id TEXT COLLATE "C" NOT NULL,
        name TEXT NOT NULL, admits TEXT, updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (eid, gate_id)
      );
    `,
  },
  {
    // As SQLite's version 6: who is inside, written with each entry and exit.
    version: 6,
    sql: `
      CREATE TABLE presence (
        tid TEXT COLLATE "C" PRIMARY KEY REFERENCES tickets (tid), eid TEXT COLLATE "C" NOT NULL,
        inside BOOLEAN NOT NULL, checked_out_at TEXT COLLATE "C"
      );
      CREATE INDEX presence_inside ON presence (eid) WHERE inside;
      INSERT INTO presence (tid, eid, inside) SELECT tid, eid, true FROM tickets WHERE checked_in_at IS NOT NULL;
    `,
  },
  {
    // Entries and exits per event and gate ('' for scans that named none), moved in the transaction
    // that appends each checked_in or checked_out change: occupancy reads a handful of rows, not the
    // feed. Counted from the feed for what came before.
    version: 7,
    sql: `
      CREATE TABLE gate_counts (
        eid TEXT COLLATE "C" NOT NULL, gate_key TEXT COLLATE "C" NOT NULL, entries BIGINT NOT NULL, exits BIGINT NOT NULL,
        PRIMARY KEY (eid, gate_key)
      );
      INSERT INTO gate_counts (eid, gate_key, entries, exits)
        SELECT eid, COALESCE(gate_id, ''),
               SUM(CASE WHEN type = 'checked_in' THEN 1 ELSE 0 END), SUM(CASE WHEN type = 'checked_out' THEN 1 ELSE 0 END)
          FROM changes WHERE type IN ('checked_in', 'checked_out') GROUP BY eid, COALESCE(gate_id, '');
    `,
  },
  {
    // As SQLite's version 8: webhook endpoints, subscriptions, the outbox and the attempts.
    version: 8,
    sql: `
      CREATE TABLE webhooks (
        webhook_id TEXT COLLATE "C" PRIMARY KEY, url TEXT NOT NULL, event_types TEXT NOT NULL, eid TEXT COLLATE "C",
        description TEXT, enabled BOOLEAN NOT NULL, secret_enc TEXT NOT NULL, previous_secret_enc TEXT,
        previous_secret_until TEXT, created_at TEXT NOT NULL, failing_since TEXT, disabled_reason TEXT
      );
      CREATE TABLE webhook_subscriptions (
        type TEXT COLLATE "C" NOT NULL, eid_key TEXT COLLATE "C" NOT NULL, webhook_id TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (type, eid_key, webhook_id)
      );
      CREATE INDEX webhook_subscriptions_of ON webhook_subscriptions (webhook_id);
      CREATE TABLE webhook_messages (
        seq BIGSERIAL PRIMARY KEY, message_id TEXT COLLATE "C" NOT NULL UNIQUE, webhook_id TEXT COLLATE "C" NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL, position BIGINT, occurred_at TEXT NOT NULL,
        state TEXT NOT NULL, next_attempt_at TEXT COLLATE "C", attempt_count INTEGER NOT NULL DEFAULT 0,
        lease_until TEXT COLLATE "C", lease_owner TEXT
      );
      CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_messages_due_of ON webhook_messages (webhook_id, next_attempt_at, seq) WHERE state = 'pending';
      CREATE INDEX webhook_messages_of ON webhook_messages (webhook_id, seq);
      CREATE TABLE webhook_attempts (
        message_id TEXT COLLATE "C" NOT NULL, n INTEGER NOT NULL, at TEXT NOT NULL, status_code INTEGER, error TEXT,
        duration_ms INTEGER NOT NULL, PRIMARY KEY (message_id, n)
      );
    `,
  },
  {
    // Version 6's presence_inside index served occupancy while it counted presence rows; occupancy
    // reads gate_counts since version 7 and nothing reads the index, so entries and exits stop
    // keeping it up to date.
    version: 9,
    sql: `DROP INDEX IF EXISTS presence_inside;`,
  },
  {
    // As SQLite's version 10: the organizer's own id of a ticket, unique per event.
    version: 10,
    sql: `
      ALTER TABLE tickets ADD COLUMN external_id TEXT COLLATE "C";
      CREATE UNIQUE INDEX tickets_by_external_id ON tickets (eid, external_id) WHERE external_id IS NOT NULL;
    `,
  },
  {
    // As SQLite's version 11: an event's enrolment tokens by creation, and the key each one gave.
    version: 11,
    sql: `
      CREATE INDEX enrollment_tokens_by_event ON enrollment_tokens (eid, created_at);
      CREATE INDEX api_keys_by_token ON api_keys (token_id);
    `,
  },
  {
    // As SQLite's version 12: each holder name's search key in `search_name`, computed by the one
    // TypeScript function (`fill`, in the migration's transaction: the database's own lower() and
    // normalize() depend on its locale and version), then the event's index with that column.
    version: 12,
    sql: `ALTER TABLE tickets ADD COLUMN search_name TEXT COLLATE "C" NOT NULL DEFAULT ''`,
    fill: fillSearchNames,
    after: `
      CREATE INDEX tickets_search ON tickets (eid, tid, search_name);
      DROP INDEX tickets_by_event;
    `,
  },
  {
    // As SQLite's version 13: when a webhook message ended, the schedule steps it used, a redelivery
    // asked for, and their indexes.
    version: 13,
    sql: `
      ALTER TABLE webhook_messages ADD COLUMN finished_at TEXT COLLATE "C";
      ALTER TABLE webhook_messages ADD COLUMN schedule_step INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_messages ADD COLUMN redeliver BOOLEAN NOT NULL DEFAULT FALSE;
      UPDATE webhook_messages SET schedule_step = attempt_count WHERE attempt_count > 0;
      UPDATE webhook_messages m SET finished_at = COALESCE(
          (SELECT max(a.at) FROM webhook_attempts a WHERE a.message_id = m.message_id), m.occurred_at)
        WHERE state <> 'pending';
      CREATE INDEX webhook_messages_ended ON webhook_messages (finished_at) WHERE state <> 'pending';
      CREATE INDEX webhook_messages_redelivered ON webhook_messages (webhook_id, next_attempt_at, seq)
        WHERE state = 'pending' AND redeliver;
    `,
  },
  {
    // As SQLite's version 14: a double scan's conflict messages read the scans just logged by key.
    version: 14,
    sql: `CREATE INDEX scans_by_key ON scans (eid, idempotency_key, outcome);`,
  },
  {
    // The scan log by the changes feed's rule: each scan takes its event's next log position from the
    // event's counter row (change_counters, locked until the scan's transaction ends), so positions
    // commit in order and a pager that read position p has seen every position below it. scan_id
    // comes from a sequence, where a lower value can commit after a higher one was read. Existing scans
    // are numbered in scan_id order.
    version: 15,
    sql: `
      ALTER TABLE scans ADD COLUMN log_position BIGINT;
      ALTER TABLE change_counters ADD COLUMN last_log_position BIGINT NOT NULL DEFAULT 0;
      UPDATE scans s SET log_position = n.log_position
        FROM (SELECT scan_id, ROW_NUMBER() OVER (PARTITION BY eid ORDER BY scan_id) AS log_position FROM scans) n
        WHERE n.scan_id = s.scan_id;
      ALTER TABLE scans ALTER COLUMN log_position SET NOT NULL;
      CREATE UNIQUE INDEX scans_by_log_position ON scans (eid, log_position);
      INSERT INTO change_counters (eid, last_position, last_log_position)
        SELECT eid, 0, MAX(log_position) FROM scans GROUP BY eid
        ON CONFLICT (eid) DO UPDATE SET last_log_position = EXCLUDED.last_log_position;
    `,
  },
  {
    // As SQLite's version 16: the console's counts kept, not counted (see store/counters.ts).
    version: 16,
    sql: `
      CREATE TABLE event_counters (
        eid TEXT COLLATE "C" PRIMARY KEY, issued BIGINT NOT NULL, checked_in BIGINT NOT NULL, revoked BIGINT NOT NULL,
        conflicts BIGINT NOT NULL
      );
      CREATE TABLE ticket_conflicts (
        tid TEXT COLLATE "C" PRIMARY KEY, eid TEXT COLLATE "C" NOT NULL, anchor BIGINT NOT NULL
      );
      CREATE INDEX ticket_conflicts_by_event ON ticket_conflicts (eid, anchor);
      CREATE TABLE arrival_counts (
        eid TEXT COLLATE "C" NOT NULL, minute TEXT COLLATE "C" NOT NULL, gate_key TEXT COLLATE "C" NOT NULL,
        entries BIGINT NOT NULL, PRIMARY KEY (eid, minute, gate_key)
      );
      INSERT INTO ticket_conflicts (tid, eid, anchor)
        SELECT d.tid, d.eid, MIN(v.scan_id) FROM scans d
          JOIN scans v ON v.scan_id = (SELECT MAX(x.scan_id) FROM scans x
            WHERE x.eid = d.eid AND x.tid = d.tid AND x.outcome = 'valid' AND NOT x.replay AND x.scan_id < d.scan_id)
         WHERE d.outcome = 'already_used' AND NOT d.replay AND NOT d.turned_away_offline
           AND d.scanner_id <> v.scanner_id AND (d.admitted_offline OR d.scanned_at < v.received_at)
         GROUP BY d.tid, d.eid;
      INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
        SELECT eid, COUNT(*), COUNT(checked_in_at), COUNT(revoked_at),
               (SELECT COUNT(*) FROM ticket_conflicts c WHERE c.eid = tickets.eid)
          FROM tickets GROUP BY eid;
      INSERT INTO arrival_counts (eid, minute, gate_key, entries)
        SELECT eid, substr(at, 1, 16), COALESCE(gate_id, ''), COUNT(*) FROM changes WHERE type = 'checked_in'
         GROUP BY eid, substr(at, 1, 16), COALESCE(gate_id, '');
    `,
  },
  {
    // Entry rules (fourth release), as SQLite's version 17 explains.
    version: 17,
    sql: `
      ALTER TABLE events ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
      ALTER TABLE events ADD COLUMN day_starts_at TEXT COLLATE "C" NOT NULL DEFAULT '00:00';
      ALTER TABLE events ADD COLUMN auto_exit BOOLEAN NOT NULL DEFAULT false;
      CREATE TABLE ticket_types (
        eid TEXT COLLATE "C" NOT NULL REFERENCES events (eid), type_key TEXT NOT NULL, ticket_type TEXT NOT NULL,
        valid_days TEXT, hours_from TEXT COLLATE "C", hours_until TEXT COLLATE "C", max_entries INTEGER,
        max_entries_per_day INTEGER, reentry TEXT, min_minutes_between_entries INTEGER,
        attention BOOLEAN NOT NULL DEFAULT false, checkin_text TEXT, updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (eid, type_key)
      );
      CREATE INDEX tickets_by_type ON tickets (eid, ticket_type);
      ALTER TABLE tickets ADD COLUMN valid_from TEXT COLLATE "C";
      ALTER TABLE tickets ADD COLUMN attention BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE tickets ADD COLUMN checkin_text TEXT;
      CREATE TABLE entries (
        eid TEXT COLLATE "C" NOT NULL, idempotency_key TEXT COLLATE "C" NOT NULL, tid TEXT COLLATE "C" NOT NULL,
        scanner_id TEXT NOT NULL, scanned_at TEXT COLLATE "C" NOT NULL, annulled_at TEXT COLLATE "C",
        PRIMARY KEY (eid, idempotency_key)
      );
      CREATE INDEX entries_by_ticket ON entries (tid, scanned_at);
      INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at)
        SELECT eid, idempotency_key, tid, scanner_id, scanned_at FROM scans WHERE outcome = 'valid' AND NOT replay;
      ALTER TABLE gate_counts ADD COLUMN repeats BIGINT NOT NULL DEFAULT 0;
      CREATE INDEX presence_inside_by_event ON presence (eid) WHERE inside;
      CREATE TABLE auto_exits (
        eid TEXT COLLATE "C" NOT NULL, day TEXT COLLATE "C" NOT NULL, at TEXT COLLATE "C" NOT NULL,
        exited BIGINT NOT NULL, done_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (eid, day)
      );
    `,
  },
  {
    // A ticket's gate notes on its ticket_notes changes, as SQLite's version 18 explains.
    version: 18,
    sql: `
      ALTER TABLE changes ADD COLUMN attention BOOLEAN, ADD COLUMN checkin_text TEXT;
    `,
  },
  {
    // Automatic exit, as SQLite's version 19 explains: one trigger function does both of its triggers' work.
    version: 19,
    sql: `
      ALTER TABLE changes ADD COLUMN auto BOOLEAN;
      ALTER TABLE events ADD COLUMN auto_exit_since TEXT COLLATE "C";
      CREATE INDEX events_auto_exit ON events (eid) WHERE auto_exit;
      CREATE FUNCTION events_auto_exit_since() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          NEW.auto_exit_since := CASE WHEN NEW.auto_exit THEN NEW.created_at END;
        ELSIF NEW.auto_exit IS DISTINCT FROM OLD.auto_exit THEN
          NEW.auto_exit_since := NULL;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER events_auto_exit_since BEFORE INSERT OR UPDATE OF auto_exit ON events
        FOR EACH ROW EXECUTE FUNCTION events_auto_exit_since();
    `,
  },
  {
    // Annul (fourth release), as SQLite's version 20 explains.
    version: 20,
    sql: `
      ALTER TABLE entries ADD COLUMN gate_key TEXT COLLATE "C" NOT NULL DEFAULT '';
      ALTER TABLE entries ADD COLUMN was_inside BOOLEAN NOT NULL DEFAULT false;
      UPDATE entries SET gate_key = COALESCE(
        (SELECT s.gate_id FROM scans s WHERE s.eid = entries.eid AND s.idempotency_key = entries.idempotency_key
          AND s.outcome = 'valid' AND NOT s.replay ORDER BY s.scan_id LIMIT 1), '');
      ALTER TABLE scans ADD COLUMN annulled_at TEXT COLLATE "C";
      ALTER TABLE changes ADD COLUMN idempotency_key TEXT COLLATE "C";
    `,
  },
  {
    // Finding a holder at the gate, as SQLite's version 21 explains; each name's words are computed by
    // the one TypeScript function (`fill`), as the search key of version 12 is.
    version: 21,
    sql: `
      ALTER TABLE enrollment_tokens ADD COLUMN allow_search BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE api_keys ADD COLUMN allow_search BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE scans ADD COLUMN manual BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE tickets ADD COLUMN search_words TEXT COLLATE "C" NOT NULL DEFAULT '';
    `,
    fill: (client) => fillSearchColumn(client, 'search_words', searchWords),
  },
  {
    // People, roles and the audit trail, as SQLite's version 22 explains. The audit log's `seq` is a
    // sequence: paging goes newest first by it.
    version: 22,
    sql: `
      CREATE TABLE users (
        user_id TEXT COLLATE "C" PRIMARY KEY,
        email TEXT COLLATE "C" NOT NULL UNIQUE,
        name TEXT NOT NULL,
        role TEXT COLLATE "C" NOT NULL,
        events TEXT,
        disabled_at TEXT COLLATE "C",
        password_hash TEXT,
        created_at TEXT COLLATE "C" NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE user_invites (
        invite_hash TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT COLLATE "C" NOT NULL,
        used_at TEXT COLLATE "C"
      );
      CREATE INDEX user_invites_by_user ON user_invites (user_id);
      CREATE TABLE api_tokens (
        token_id TEXT COLLATE "C" PRIMARY KEY,
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        user_id TEXT COLLATE "C" NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT COLLATE "C",
        last_used_at TEXT COLLATE "C"
      );
      CREATE INDEX api_tokens_by_user ON api_tokens (user_id);
      CREATE TABLE sign_in_failures (email TEXT COLLATE "C" NOT NULL, at TEXT COLLATE "C" NOT NULL);
      CREATE INDEX sign_in_failures_by_email ON sign_in_failures (email, at);
      CREATE TABLE sso_logins (
        state_hash TEXT COLLATE "C" PRIMARY KEY,
        sealed TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE audit_log (
        seq BIGSERIAL PRIMARY KEY,
        at TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C",
        actor_name TEXT NOT NULL,
        via TEXT COLLATE "C" NOT NULL,
        action TEXT COLLATE "C" NOT NULL,
        target TEXT,
        eid TEXT COLLATE "C",
        ip TEXT,
        details TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX audit_log_by_event ON audit_log (eid, seq);
      CREATE INDEX audit_log_by_user ON audit_log (user_id, seq);
      ALTER TABLE admin_sessions ADD COLUMN user_id TEXT COLLATE "C";
      CREATE INDEX admin_sessions_by_user ON admin_sessions (user_id);
    `,
  },
  {
    // Entry identity in the feed, as SQLite's version 23 explains.
    version: 23,
    sql: `
      UPDATE changes SET idempotency_key = COALESCE(
        (SELECT e.idempotency_key FROM entries e WHERE e.tid = changes.tid AND e.scanned_at = changes.at
          ORDER BY e.idempotency_key LIMIT 1),
        (SELECT s.idempotency_key FROM scans s WHERE s.eid = changes.eid AND s.tid = changes.tid
          AND s.scanned_at = changes.at AND s.outcome = 'valid' AND NOT s.replay ORDER BY s.scan_id LIMIT 1))
      WHERE type = 'checked_in' AND idempotency_key IS NULL;
    `,
  },
  {
    // Ticket types gain max_days, as SQLite's version 24 (23 is taken by another change of the release).
    version: 24,
    sql: 'ALTER TABLE ticket_types ADD COLUMN max_days INTEGER;',
  },
  {
    // Single sign-on's links of people to the provider's (issuer, subject), as SQLite's version 25.
    version: 25,
    sql: `
      CREATE TABLE sso_links (
        issuer TEXT COLLATE "C" NOT NULL,
        subject TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (issuer, subject)
      );
      CREATE UNIQUE INDEX sso_links_by_user ON sso_links (user_id, issuer);
    `,
  },
  {
    // Tickets gain the holder's email address, as SQLite's version 26.
    version: 26,
    sql: 'ALTER TABLE tickets ADD COLUMN email TEXT;',
  },
  // Apple Wallet (fifth release): registrations, pass changes and the push outbox.
  ...APPLE_PASS_POSTGRES_MIGRATIONS,
  {
    // The mail outbox, as in SQLite (see its version 28).
    version: 28,
    sql: `
      CREATE TABLE deliveries (
        tid TEXT COLLATE "C" PRIMARY KEY,
        eid TEXT COLLATE "C" NOT NULL,
        email TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        queued_at TEXT COLLATE "C" NOT NULL,
        sent_at TEXT COLLATE "C",
        next_attempt_at TEXT COLLATE "C",
        lease_until TEXT COLLATE "C",
        lease_token TEXT
      );
      CREATE INDEX deliveries_by_event ON deliveries (eid, tid);
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at, tid) WHERE status = 'queued';
    `,
  },
  {
    // As SQLite's version 29: the wallet outbox and the channels turned on.
    version: 29,
    sql: `
      CREATE TABLE wallet_channels (channel TEXT COLLATE "C" PRIMARY KEY);
      CREATE TABLE wallet_pushes (
        push_id BIGSERIAL PRIMARY KEY, channel TEXT COLLATE "C" NOT NULL, tid TEXT COLLATE "C" NOT NULL,
        eid TEXT COLLATE "C" NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT COLLATE "C" NOT NULL, lease_until TEXT COLLATE "C", lease_owner TEXT,
        last_status INTEGER, last_error TEXT, created_at TEXT NOT NULL, finished_at TEXT
      );
      CREATE INDEX wallet_pushes_due ON wallet_pushes (channel, next_attempt_at, push_id) WHERE state = 'pending';
      CREATE INDEX wallet_pushes_of ON wallet_pushes (tid, push_id);
    `,
  },
  // The event report's indexes (see ../report-migration.ts).
  REPORT_MIGRATION,
  // Each event's email numbers kept by triggers, as SQLite's version 32.
  ...DELIVERY_COUNT_POSTGRES_MIGRATIONS,
  // Groups, short codes, the offline roster and scanner clocks (fifth release).
  ...GROUP_POSTGRES_MIGRATIONS,
  ...REPORT_COUNT_POSTGRES_MIGRATIONS,
  // Scans by key: a first entry no longer writes a line (see ../scans-by-key-migration.ts).
  SCANS_BY_KEY_MIGRATION,
  // Entries without an index by key; the remembered answer keeps its ticket (see ../entries-key-migration.ts).
  ENTRIES_KEY_POSTGRES_MIGRATION,
];

/** Writes every ticket's search key, 5,000 tickets a statement, in tid order. */
function fillSearchNames(client: pg.PoolClient): Promise<void> {
  return fillSearchColumn(client, 'search_name', searchKey);
}

/** Writes a search column of every ticket from its holder name, 5,000 tickets a statement, in tid order. */
async function fillSearchColumn(
  client: pg.PoolClient,
  column: 'search_name' | 'search_words',
  of: (holderName: string) => string,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await all<{ tid: string; holder_name: string }>(
      client,
      'SELECT tid, holder_name FROM tickets WHERE tid > $1 ORDER BY tid LIMIT 5000',
      [after],
    );
    if (rows.length === 0) return;
    await client.query(
      `UPDATE tickets SET ${column} = u.value FROM unnest($1::text[], $2::text[]) AS u (tid, value)
        WHERE tickets.tid = u.tid`,
      [rows.map((row) => row.tid), rows.map((row) => of(row.holder_name))],
    );
    after = rows[rows.length - 1]!.tid;
  }
}

/**
 * Advisory lock namespace of migrations (the first key of the two-int form), chosen to be unlikely
 * to collide with another application sharing the database.
 */
const LOCK_MIGRATIONS = 0x54490001;

/** Applies pending migrations under a session advisory lock, so concurrent starts migrate one at a time. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, 0)', [LOCK_MIGRATIONS]);
    try {
      await applyPending(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, 0)', [LOCK_MIGRATIONS]);
    }
  } finally {
    client.release();
  }
}

async function applyPending(client: pg.PoolClient): Promise<void> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    (await all<{ version: number }>(client, 'SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  for (const migration of POSTGRES_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    await client.query('BEGIN');
    try {
      await client.query(migration.sql);
      await migration.fill?.(client);
      if (migration.after) await client.query(migration.after);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        migration.version,
        new Date().toISOString(),
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }
}
