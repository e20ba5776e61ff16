/** Versioned schema changes of the SQLite store, applied in order at start. Never edit a shipped one. */
export const SQLITE_MIGRATIONS: readonly { version: number; sql: string }[] = [
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
];
