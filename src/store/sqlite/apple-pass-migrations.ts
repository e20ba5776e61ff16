/**
 * Migration 27 of the SQLite store: Apple Wallet. Devices registered for a ticket's pass, each pass's
 * last change, and the pushes that tell devices a pass changed (a durable outbox, like webhooks').
 *
 * A pass changes when its ticket's holder name, type, token, revocation or notes do. A trigger marks
 * it and enqueues a push per registered device, so the mark and the pushes are written by the very
 * transaction of the change, whichever code path made it (revoke, reissue, a PATCH, an import).
 * Change times are whole seconds, each at least a second after the pass's previous one: HTTP dates
 * (`Last-Modified`, `If-Modified-Since`) count in seconds, and two changes in one second must not look
 * like one.
 */
export const APPLE_PASS_SQLITE_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 27,
    sql: `
      CREATE TABLE apple_pass_registrations (
        device_id TEXT NOT NULL,
        pass_type_id TEXT NOT NULL,
        serial TEXT NOT NULL,
        push_token TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (device_id, pass_type_id, serial)
      );
      CREATE INDEX apple_pass_registrations_by_serial ON apple_pass_registrations (serial);
      CREATE INDEX apple_pass_registrations_by_push_token ON apple_pass_registrations (push_token);
      CREATE TABLE apple_pass_changes (tid TEXT PRIMARY KEY, changed_at TEXT NOT NULL);
      CREATE TABLE apple_pushes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        push_id TEXT NOT NULL UNIQUE,
        push_token TEXT NOT NULL,
        pass_type_id TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        lease_owner TEXT,
        last_error TEXT,
        created_at TEXT NOT NULL,
        ended_at TEXT
      );
      CREATE INDEX apple_pushes_due ON apple_pushes (next_attempt_at, seq) WHERE state = 'pending';
      CREATE INDEX apple_pushes_ended ON apple_pushes (ended_at) WHERE state <> 'pending';
      CREATE TRIGGER apple_pass_changed
        AFTER UPDATE OF holder_name, ticket_type, ticket_token, revoked_at, attention, checkin_text ON tickets
        WHEN OLD.holder_name IS NOT NEW.holder_name OR OLD.ticket_type IS NOT NEW.ticket_type
          OR OLD.ticket_token IS NOT NEW.ticket_token OR OLD.revoked_at IS NOT NEW.revoked_at
          OR OLD.attention IS NOT NEW.attention OR OLD.checkin_text IS NOT NEW.checkin_text
      BEGIN
        INSERT OR REPLACE INTO apple_pass_changes (tid, changed_at)
          SELECT NEW.tid, strftime('%Y-%m-%dT%H:%M:%S.000Z', max(
            CAST(strftime('%s', 'now') AS INTEGER) + 1,
            COALESCE((SELECT CAST(strftime('%s', changed_at) AS INTEGER) + 1 FROM apple_pass_changes WHERE tid = NEW.tid), 0)
          ), 'unixepoch');
        INSERT INTO apple_pushes (push_id, push_token, pass_type_id, state, next_attempt_at, created_at)
          SELECT 'push_' || lower(hex(randomblob(16))), push_token, pass_type_id, 'pending',
            strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
          FROM apple_pass_registrations WHERE serial = NEW.tid;
      END;
    `,
  },
];
