import type Database from 'better-sqlite3';
import { APPLE_PASS_SQLITE_MIGRATIONS } from './apple-pass-migrations.ts';
import { REPORT_MIGRATION } from '../report-migration.ts';
import { SCANS_BY_KEY_MIGRATION } from '../scans-by-key-migration.ts';
import { ENTRIES_KEY_SQLITE_MIGRATION } from '../entries-key-migration.ts';
import { DELIVERY_COUNT_SQLITE_MIGRATIONS } from './delivery-count-migrations.ts';
import { GROUP_SQLITE_MIGRATIONS } from './group-migrations.ts';
import { REPORT_COUNT_SQLITE_MIGRATIONS } from './report-count-migrations.ts';

/** A schema change: its SQL, then (for data SQL cannot compute) `fill` and the SQL that follows it. */
interface SqliteMigration {
  version: number;
  sql: string;
  fill?: (db: Database.Database) => void;
  after?: string;
}

/** Versioned schema changes of the SQLite store, applied in order at start. Never edit a shipped one. */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE events (
        eid TEXT PRIMARY KEY, name TEXT NOT NULL, event_date TEXT NOT NULL,
        ends_at TEXT, created_at TEXT NOT NULL
      );
      CREATE TABLE tickets (
        tid TEXT PRIMARY KEY, eid TEXT NOT NULL REFERENCES events (eid),
        holder_name TEXT NOT NULL, ticket_type TEXT NOT NULL, issued_at TEXT NOT NULL,
        expires_at TEXT, checked_in_at TEXT, revoked_at TEXT, revoke_reason TEXT,
        ticket_token TEXT NOT NULL
      );
      CREATE INDEX tickets_by_event ON tickets (eid, tid);
      CREATE TABLE enrollment_tokens (
        token_id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
        eid TEXT NOT NULL REFERENCES events (eid), gate_id TEXT,
        expires_at TEXT NOT NULL, key_expires_at TEXT NOT NULL, created_at TEXT NOT NULL,
        used_at TEXT, revoked_at TEXT
      );
      CREATE TABLE api_keys (
        api_key_id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE,
        eid TEXT NOT NULL REFERENCES events (eid), gate_id TEXT, scanner_id TEXT NOT NULL,
        scanner_name TEXT, scanner_platform TEXT,
        token_id TEXT NOT NULL REFERENCES enrollment_tokens (token_id),
        enrolled_at TEXT NOT NULL, expires_at TEXT NOT NULL, last_seen_at TEXT, revoked_at TEXT
      );
      CREATE INDEX api_keys_by_event ON api_keys (eid, api_key_id);
      CREATE TABLE idempotency_keys (
        eid TEXT NOT NULL, idempotency_key TEXT NOT NULL, fingerprint TEXT NOT NULL,
        http_status INTEGER NOT NULL, body TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (eid, idempotency_key)
      );
      CREATE TABLE scans (
        scan_id INTEGER PRIMARY KEY AUTOINCREMENT, eid TEXT NOT NULL, tid TEXT NOT NULL,
        api_key_id TEXT NOT NULL, scanner_id TEXT NOT NULL, gate_id TEXT,
        idempotency_key TEXT NOT NULL, scanned_at TEXT NOT NULL, received_at TEXT NOT NULL,
        outcome TEXT NOT NULL, reason TEXT, replay INTEGER NOT NULL
      );
      CREATE INDEX scans_by_event ON scans (eid, scan_id);
      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY, public_jwk TEXT NOT NULL, private_key_enc TEXT NOT NULL,
        created_at TEXT NOT NULL, retired_at TEXT, removed_at TEXT
      );
    `,
  },
  {
    // The changes feed (a gap-free position per event, taken inside the writing transaction), whether a
    // scan was admitted offline, and the indexes the conflicts report reads. Existing check-ins and
    // revocations are copied into the feed so that scanners syncing after the upgrade learn them too.
    version: 2,
    sql: `
      ALTER TABLE scans ADD COLUMN admitted_offline INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX scans_by_outcome ON scans (eid, outcome, tid);
      CREATE TABLE changes (
        eid TEXT NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL, tid TEXT NOT NULL,
        at TEXT NOT NULL, scanner_id TEXT, gate_id TEXT, jti TEXT,
        PRIMARY KEY (eid, position)
      );
      CREATE TABLE change_counters (eid TEXT PRIMARY KEY, last_position INTEGER NOT NULL);
      INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id)
        SELECT eid, ROW_NUMBER() OVER (PARTITION BY eid ORDER BY at, type, tid), type, tid, at, scanner_id, gate_id
        FROM (
          SELECT t.eid, 'checked_in' AS type, t.tid, t.checked_in_at AS at,
            COALESCE(s.scanner_id, '') AS scanner_id, s.gate_id
          FROM tickets t LEFT JOIN scans s ON s.scan_id = (
            SELECT MIN(scan_id) FROM scans WHERE tid = t.tid AND outcome = 'valid' AND replay = 0)
          WHERE t.checked_in_at IS NOT NULL
          UNION ALL
          SELECT eid, 'revoked', tid, revoked_at, NULL, NULL FROM tickets WHERE revoked_at IS NOT NULL
        );
      INSERT INTO change_counters (eid, last_position) SELECT eid, MAX(position) FROM changes GROUP BY eid;
    `,
  },
  {
    // Console sessions of the organizer (only a hash of the session id), kept here so that a restart
    // keeps them; the expiry index serves the purge run at each sign-in.
    version: 3,
    sql: `
      CREATE TABLE admin_sessions (
        session_hash TEXT PRIMARY KEY, admin_token_tag TEXT NOT NULL, created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL, expires_at TEXT NOT NULL
      );
      CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
    `,
  },
  {
    // A scan turned away offline (`admitted_offline: false`) is told apart from one that said nothing:
    // only the latter can be an offline double entry. Rows from before keep 0 (they said nothing or true).
    version: 4,
    sql: `ALTER TABLE scans ADD COLUMN turned_away_offline INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    // Event settings (re-entry, capacity) and the gates declared per event, each with the ticket
    // types it admits (a JSON array; NULL: every type).
    version: 5,
    sql: `
      ALTER TABLE events ADD COLUMN reentry INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE events ADD COLUMN capacity INTEGER;
      CREATE TABLE gates (
        eid TEXT NOT NULL REFERENCES events (eid), gate_id TEXT NOT NULL, name TEXT NOT NULL,
        admits TEXT, updated_at TEXT NOT NULL,
        PRIMARY KEY (eid, gate_id)
      );
    `,
  },
  {
    // Who is inside: one row per ticket that ever came in, written in the transaction of each entry
    // and exit. Occupancy counts the rows inside (a partial index keeps that count small to read).
    // Tickets checked in before exits existed are inside.
    version: 6,
    sql: `
      CREATE TABLE presence (
        tid TEXT PRIMARY KEY REFERENCES tickets (tid), eid TEXT NOT NULL,
        inside INTEGER NOT NULL, checked_out_at TEXT
      );
      CREATE INDEX presence_inside ON presence (eid) WHERE inside = 1;
      INSERT INTO presence (tid, eid, inside) SELECT tid, eid, 1 FROM tickets WHERE checked_in_at IS NOT NULL;
    `,
  },
  {
    // Entries and exits per event and gate ('' for scans that named none), moved in the transaction
    // that appends each checked_in or checked_out change: occupancy reads a handful of rows, not the
    // feed. Counted from the feed for what came before.
    version: 7,
    sql: `
      CREATE TABLE gate_counts (
        eid TEXT NOT NULL, gate_key TEXT NOT NULL, entries BIGINT NOT NULL, exits BIGINT NOT NULL,
        PRIMARY KEY (eid, gate_key)
      );
      INSERT INTO gate_counts (eid, gate_key, entries, exits)
        SELECT eid, COALESCE(gate_id, ''),
               SUM(CASE WHEN type = 'checked_in' THEN 1 ELSE 0 END), SUM(CASE WHEN type = 'checked_out' THEN 1 ELSE 0 END)
          FROM changes WHERE type IN ('checked_in', 'checked_out') GROUP BY eid, COALESCE(gate_id, '');
    `,
  },
  {
    // Webhooks: the endpoints, their subscriptions (one row per type and event scope, only while the
    // endpoint is enabled: a change's transaction fans its messages out with one indexed read), the
    // outbox of messages (written in the change's own transaction) and every delivery attempt.
    version: 8,
    sql: `
      CREATE TABLE webhooks (
        webhook_id TEXT PRIMARY KEY, url TEXT NOT NULL, event_types TEXT NOT NULL, eid TEXT, description TEXT,
        enabled INTEGER NOT NULL, secret_enc TEXT NOT NULL, previous_secret_enc TEXT, previous_secret_until TEXT,
        created_at TEXT NOT NULL, failing_since TEXT, disabled_reason TEXT
      );
      CREATE TABLE webhook_subscriptions (
        type TEXT NOT NULL, eid_key TEXT NOT NULL, webhook_id TEXT NOT NULL,
        PRIMARY KEY (type, eid_key, webhook_id)
      );
      CREATE INDEX webhook_subscriptions_of ON webhook_subscriptions (webhook_id);
      CREATE TABLE webhook_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL UNIQUE, webhook_id TEXT NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL, position INTEGER, occurred_at TEXT NOT NULL,
        state TEXT NOT NULL, next_attempt_at TEXT, attempt_count INTEGER NOT NULL DEFAULT 0, lease_until TEXT,
        lease_owner TEXT
      );
      CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_messages_due_of ON webhook_messages (webhook_id, next_attempt_at, seq) WHERE state = 'pending';
      CREATE INDEX webhook_messages_of ON webhook_messages (webhook_id, seq);
      CREATE TABLE webhook_attempts (
        message_id TEXT NOT NULL, n INTEGER NOT NULL, at TEXT NOT NULL, status_code INTEGER, error TEXT,
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
    // The organizer's own id of a ticket (an order line, a CSV row): unique per event, so that an
    // import made twice creates each ticket once, however many imports run at the same time.
    version: 10,
    sql: `
      ALTER TABLE tickets ADD COLUMN external_id TEXT;
      CREATE UNIQUE INDEX tickets_by_external_id ON tickets (eid, external_id) WHERE external_id IS NOT NULL;
    `,
  },
  {
    // The organizer's list of an event's enrolment tokens, newest first, each with the scanner that
    // used it: the API key a token was exchanged for keeps its token_id, so an index on that column
    // finds the scanner (and serves the revoke route's lookup of it) without a scan of every key.
    version: 11,
    sql: `
      CREATE INDEX enrollment_tokens_by_event ON enrollment_tokens (eid, created_at);
      CREATE INDEX api_keys_by_token ON api_keys (token_id);
    `,
  },
  {
    // Ticket search ignores case, accents and punctuation: each holder name's key (`searchKey`, the
    // store's registered `search_key` function here) is kept in `search_name`, written with the
    // ticket. The event's index gains the column after tid, so a search walks one index in the
    // answer's order and reads a ticket's row only for a match; it replaces the index on (eid, tid).
    version: 12,
    sql: `
      ALTER TABLE tickets ADD COLUMN search_name TEXT NOT NULL DEFAULT '';
      UPDATE tickets SET search_name = search_key(holder_name);
      CREATE INDEX tickets_search ON tickets (eid, tid, search_name);
      DROP INDEX tickets_by_event;
    `,
  },
  {
    // Webhook outbox at festival scale: when a message ended (delivered or failed), for retention by
    // index; the steps of the retry schedule used (a Retry-After uses none); a redelivery asked for
    // (kept across an attempt under way, and what a disabled endpoint's claim looks for, by index).
    version: 13,
    sql: `
      ALTER TABLE webhook_messages ADD COLUMN finished_at TEXT;
      ALTER TABLE webhook_messages ADD COLUMN schedule_step INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE webhook_messages ADD COLUMN redeliver INTEGER NOT NULL DEFAULT 0;
      UPDATE webhook_messages SET schedule_step = attempt_count WHERE attempt_count > 0;
      UPDATE webhook_messages SET finished_at = COALESCE(
          (SELECT max(a.at) FROM webhook_attempts a WHERE a.message_id = webhook_messages.message_id), occurred_at)
        WHERE state <> 'pending';
      CREATE INDEX webhook_messages_ended ON webhook_messages (finished_at) WHERE state <> 'pending';
      CREATE INDEX webhook_messages_redelivered ON webhook_messages (webhook_id, next_attempt_at, seq)
        WHERE state = 'pending' AND redeliver = 1;
    `,
  },
  {
    // A double scan's conflict messages read the scans it just logged by their idempotency key, not
    // every already_used scan of the event: its cost stays the same however long the scan log grows.
    // The outcome is part of the key so that SQLite's planner, which keeps no statistics, prefers
    // this index to the one by outcome.
    version: 14,
    sql: `CREATE INDEX scans_by_key ON scans (eid, idempotency_key, outcome);`,
  },
  {
    // PostgreSQL's version 15 numbers each event's scan log in commit order. Nothing changes here: one
    // connection writes, so scans commit in scan_id order, and the log is paged by scan_id.
    version: 15,
    sql: `SELECT 1;`,
  },
  {
    // The console's counts kept, not counted (see store/counters.ts): the event's counters, each ticket
    // in conflict once with its card's anchor, and entries per minute and gate. Counted once here from
    // what came before: the tickets, the conflicts report's rule over the scan log, the feed's entries.
    version: 16,
    sql: `
      CREATE TABLE event_counters (
        eid TEXT PRIMARY KEY, issued INTEGER NOT NULL, checked_in INTEGER NOT NULL, revoked INTEGER NOT NULL,
        conflicts INTEGER NOT NULL
      );
      CREATE TABLE ticket_conflicts (tid TEXT PRIMARY KEY, eid TEXT NOT NULL, anchor INTEGER NOT NULL);
      CREATE INDEX ticket_conflicts_by_event ON ticket_conflicts (eid, anchor);
      CREATE TABLE arrival_counts (
        eid TEXT NOT NULL, minute TEXT NOT NULL, gate_key TEXT NOT NULL, entries INTEGER NOT NULL,
        PRIMARY KEY (eid, minute, gate_key)
      );
      INSERT INTO ticket_conflicts (tid, eid, anchor)
        SELECT d.tid, d.eid, MIN(v.scan_id) FROM scans d
          JOIN scans v ON v.scan_id = (SELECT MAX(x.scan_id) FROM scans x
            WHERE x.eid = d.eid AND x.tid = d.tid AND x.outcome = 'valid' AND x.replay = 0 AND x.scan_id < d.scan_id)
         WHERE d.outcome = 'already_used' AND d.replay = 0 AND d.turned_away_offline = 0
           AND d.scanner_id <> v.scanner_id AND (d.admitted_offline = 1 OR d.scanned_at < v.received_at)
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
    // Entry rules (fourth release): each event's calendar and automatic exit; ticket types with their
    // rules (valid_days as a JSON list of dates, hours as two local times); each ticket's valid_from and
    // notes for the gate; the entries that count against the limits, one row per counted entry, keyed by
    // the scan's idempotency key so that an annulled one can be marked; entries made while counted
    // inside (re-entry "any"), which do not add to occupancy; and the automatic exits done, once per day.
    version: 17,
    sql: `
      ALTER TABLE events ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
      ALTER TABLE events ADD COLUMN day_starts_at TEXT NOT NULL DEFAULT '00:00';
      ALTER TABLE events ADD COLUMN auto_exit INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE ticket_types (
        eid TEXT NOT NULL REFERENCES events (eid), type_key TEXT NOT NULL, ticket_type TEXT NOT NULL,
        valid_days TEXT, hours_from TEXT, hours_until TEXT, max_entries INTEGER, max_entries_per_day INTEGER,
        reentry TEXT, min_minutes_between_entries INTEGER, attention INTEGER NOT NULL DEFAULT 0,
        checkin_text TEXT, updated_at TEXT NOT NULL,
        PRIMARY KEY (eid, type_key)
      );
      CREATE INDEX tickets_by_type ON tickets (eid, ticket_type);
      ALTER TABLE tickets ADD COLUMN valid_from TEXT;
      ALTER TABLE tickets ADD COLUMN attention INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tickets ADD COLUMN checkin_text TEXT;
      CREATE TABLE entries (
        eid TEXT NOT NULL, idempotency_key TEXT NOT NULL, tid TEXT NOT NULL, scanner_id TEXT NOT NULL,
        scanned_at TEXT NOT NULL, annulled_at TEXT,
        PRIMARY KEY (eid, idempotency_key)
      );
      CREATE INDEX entries_by_ticket ON entries (tid, scanned_at);
      INSERT INTO entries (eid, idempotency_key, tid, scanner_id, scanned_at)
        SELECT eid, idempotency_key, tid, scanner_id, scanned_at FROM scans WHERE outcome = 'valid' AND replay = 0;
      ALTER TABLE gate_counts ADD COLUMN repeats INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX presence_inside_by_event ON presence (eid) WHERE inside = 1;
      CREATE TABLE auto_exits (
        eid TEXT NOT NULL, day TEXT NOT NULL, at TEXT NOT NULL, exited INTEGER NOT NULL, done_at TEXT NOT NULL,
        PRIMARY KEY (eid, day)
      );
    `,
  },
  {
    // A ticket's gate notes as a ticket_notes change set them: a scanner paging the feed later reads
    // each change as it was made, not the ticket as it is now. Null on every other change.
    version: 18,
    sql: `
      ALTER TABLE changes ADD COLUMN attention INTEGER;
      ALTER TABLE changes ADD COLUMN checkin_text TEXT;
    `,
  },
  {
    // Automatic exit at the start of each event day (see store/auto-exit.ts). A checked_out change it
    // made is marked `auto` (1; null on every other change). `auto_exit_since` is when the automatic
    // exit took effect: the first day start it counts out at comes after it. An event created with it
    // on takes its created_at (the first trigger); switching it on or off empties it (the second), and
    // the instances' loop fills it with its own clock's time when it next looks, within seconds. The
    // partial index keeps that look to the events that have it on.
    version: 19,
    sql: `
      ALTER TABLE changes ADD COLUMN auto INTEGER;
      ALTER TABLE events ADD COLUMN auto_exit_since TEXT;
      CREATE INDEX events_auto_exit ON events (eid) WHERE auto_exit = 1;
      CREATE TRIGGER events_auto_exit_created AFTER INSERT ON events WHEN NEW.auto_exit = 1
      BEGIN
        UPDATE events SET auto_exit_since = NEW.created_at WHERE eid = NEW.eid;
      END;
      CREATE TRIGGER events_auto_exit_switched AFTER UPDATE OF auto_exit ON events
        WHEN NEW.auto_exit IS NOT OLD.auto_exit
      BEGIN
        UPDATE events SET auto_exit_since = NULL WHERE eid = NEW.eid;
      END;
    `,
  },
  {
    // Annul (fourth release): each counted entry keeps its gate and whether the holder was counted
    // inside already (what an annul gives back to occupancy); the scan log and the feed's annulled
    // change keep the annulled entry's idempotency key and time.
    version: 20,
    sql: `
      ALTER TABLE entries ADD COLUMN gate_key TEXT NOT NULL DEFAULT '';
      ALTER TABLE entries ADD COLUMN was_inside INTEGER NOT NULL DEFAULT 0;
      UPDATE entries SET gate_key = COALESCE(
        (SELECT s.gate_id FROM scans s WHERE s.eid = entries.eid AND s.idempotency_key = entries.idempotency_key
          AND s.outcome = 'valid' AND s.replay = 0 ORDER BY s.scan_id LIMIT 1), '');
      ALTER TABLE scans ADD COLUMN annulled_at TEXT;
      ALTER TABLE changes ADD COLUMN idempotency_key TEXT;
    `,
  },
  {
    // Finding a holder at the gate (fourth release): an enrolment token may let its scanner search
    // holders by name (`allow_search`, 1), which the API key it is exchanged for keeps; the scan log
    // marks a check-in chosen from such a search (`manual`, 1); and each holder name's words, each as
    // its search key after a space (`searchWords`, the store's registered `search_words` function
    // here), rank a name with a word starting with the query before one that only contains it.
    version: 21,
    sql: `
      ALTER TABLE enrollment_tokens ADD COLUMN allow_search INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE api_keys ADD COLUMN allow_search INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE scans ADD COLUMN manual INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tickets ADD COLUMN search_words TEXT NOT NULL DEFAULT '';
      UPDATE tickets SET search_words = search_words(holder_name);
    `,
  },
  {
    // People, roles and the audit trail (fourth release). A person's `events` is null (every event) or a
    // JSON array of eids; `password_hash` is an scrypt hash (null until an invitation is accepted, or for
    // people who only use single sign-on). Invitations, personal API tokens and console sessions keep
    // only SHA-256 digests of their secrets. `sign_in_failures` counts failed sign-ins per email for the
    // hold; `sso_logins` keeps a single sign-on attempt's state between the redirect and the callback;
    // `audit_log` is append-only (no statement of the issuer updates or deletes a row of it).
    version: 22,
    sql: `
      CREATE TABLE users (
        user_id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        events TEXT,
        disabled_at TEXT,
        password_hash TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE user_invites (
        invite_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      );
      CREATE INDEX user_invites_by_user ON user_invites (user_id);
      CREATE TABLE api_tokens (
        token_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        last_used_at TEXT
      );
      CREATE INDEX api_tokens_by_user ON api_tokens (user_id);
      CREATE TABLE sign_in_failures (email TEXT NOT NULL, at TEXT NOT NULL);
      CREATE INDEX sign_in_failures_by_email ON sign_in_failures (email, at);
      CREATE TABLE sso_logins (
        state_hash TEXT PRIMARY KEY,
        sealed TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        user_id TEXT,
        actor_name TEXT NOT NULL,
        via TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        eid TEXT,
        ip TEXT,
        details TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX audit_log_by_event ON audit_log (eid, seq);
      CREATE INDEX audit_log_by_user ON audit_log (user_id, seq);
      ALTER TABLE admin_sessions ADD COLUMN user_id TEXT;
      CREATE INDEX admin_sessions_by_user ON admin_sessions (user_id);
    `,
  },
  {
    // Entry identity in the feed (fifth release): every `checked_in` change carries its entry's
    // idempotency key, so that an `annulled` change removes exactly that entry on every device. Changes
    // written before take the key of the counted entry (or the valid scan) of that ticket at that time.
    version: 23,
    sql: `
      UPDATE changes SET idempotency_key = COALESCE(
        (SELECT e.idempotency_key FROM entries e WHERE e.tid = changes.tid AND e.scanned_at = changes.at
          ORDER BY e.idempotency_key LIMIT 1),
        (SELECT s.idempotency_key FROM scans s WHERE s.eid = changes.eid AND s.tid = changes.tid
          AND s.scanned_at = changes.at AND s.outcome = 'valid' AND s.replay = 0 ORDER BY s.scan_id LIMIT 1))
      WHERE type = 'checked_in' AND idempotency_key IS NULL;
    `,
  },
  {
    // Ticket types gain max_days: the number of distinct event days a ticket may enter on (null: any).
    version: 24,
    sql: 'ALTER TABLE ticket_types ADD COLUMN max_days INTEGER;',
  },
  {
    // Single sign-on links a person to the provider's (issuer, subject) at their first sign-in and
    // finds them by it afterwards: one subject per person at each issuer, one person per subject.
    version: 25,
    sql: `
      CREATE TABLE sso_links (
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        user_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (issuer, subject)
      );
      CREATE UNIQUE INDEX sso_links_by_user ON sso_links (user_id, issuer);
    `,
  },
  {
    // Tickets gain the holder's email address, where the ticket is sent (null: none).
    version: 26,
    sql: 'ALTER TABLE tickets ADD COLUMN email TEXT;',
  },
  // Apple Wallet (fifth release): registrations, pass changes and the push outbox.
  ...APPLE_PASS_SQLITE_MIGRATIONS,
  {
    // The mail outbox (fifth release): one row per ticket whose email was asked for, queued until an
    // attempt sends it or fails it for good; a lease per claim (lease_until, lease_token) so that no two
    // workers attempt one at the same moment and a result is recorded only under its claim.
    version: 28,
    sql: `
      CREATE TABLE deliveries (
        tid TEXT PRIMARY KEY,
        eid TEXT NOT NULL,
        email TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        queued_at TEXT NOT NULL,
        sent_at TEXT,
        next_attempt_at TEXT,
        lease_until TEXT,
        lease_token TEXT
      );
      CREATE INDEX deliveries_by_event ON deliveries (eid, tid);
      CREATE INDEX deliveries_due ON deliveries (next_attempt_at, tid) WHERE status = 'queued';
    `,
  },
  {
    // The wallet outbox: the channels turned on (Google Wallet), and one push per revocation or reissue
    // per channel, written by the change's own transaction and sent by a worker under a lease.
    version: 29,
    sql: `
      CREATE TABLE wallet_channels (channel TEXT PRIMARY KEY);
      CREATE TABLE wallet_pushes (
        push_id INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL, tid TEXT NOT NULL, eid TEXT NOT NULL,
        kind TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL, lease_until TEXT, lease_owner TEXT, last_status INTEGER, last_error TEXT,
        created_at TEXT NOT NULL, finished_at TEXT
      );
      CREATE INDEX wallet_pushes_due ON wallet_pushes (channel, next_attempt_at, push_id) WHERE state = 'pending';
      CREATE INDEX wallet_pushes_of ON wallet_pushes (tid, push_id);
    `,
  },
  // The event report's indexes (see ../report-migration.ts).
  REPORT_MIGRATION,
  // Each event's email numbers kept by triggers, read by the console at every refresh.
  ...DELIVERY_COUNT_SQLITE_MIGRATIONS,
  // Groups, short codes, the offline roster and scanner clocks (fifth release).
  ...GROUP_SQLITE_MIGRATIONS,
  ...REPORT_COUNT_SQLITE_MIGRATIONS,
  // Scans by key: a first entry no longer writes a line (see ../scans-by-key-migration.ts).
  SCANS_BY_KEY_MIGRATION,
  // Entries without an index by key; the remembered answer keeps its ticket (see ../entries-key-migration.ts).
  ENTRIES_KEY_SQLITE_MIGRATION,
];

/** Applies the migrations not applied yet, each in its own transaction; answers how many it applied. */
export function migrate(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  let count = 0;
  for (const migration of SQLITE_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    count += 1;
    db.transaction(() => {
      db.exec(migration.sql);
      migration.fill?.(db);
      if (migration.after) db.exec(migration.after);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        new Date().toISOString(),
      );
    }).immediate();
  }
  return count;
}
