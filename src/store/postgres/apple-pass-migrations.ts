/**
 * Migration 27 of the PostgreSQL store: Apple Wallet, column for column as on SQLite (see
 * ../sqlite/apple-pass-migrations.ts for why a trigger marks a pass's change and enqueues its pushes).
 */
const NOW_MS = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const WHOLE_SECOND = (epoch: string) =>
  `to_char(to_timestamp(${epoch}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`;

export const APPLE_PASS_POSTGRES_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 27,
    sql: `
      CREATE TABLE apple_pass_registrations (
        device_id TEXT COLLATE "C" NOT NULL,
        pass_type_id TEXT COLLATE "C" NOT NULL,
        serial TEXT COLLATE "C" NOT NULL,
        push_token TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (device_id, pass_type_id, serial)
      );
      CREATE INDEX apple_pass_registrations_by_serial ON apple_pass_registrations (serial);
      CREATE INDEX apple_pass_registrations_by_push_token ON apple_pass_registrations (push_token);
      CREATE TABLE apple_pass_changes (tid TEXT COLLATE "C" PRIMARY KEY, changed_at TEXT COLLATE "C" NOT NULL);
      CREATE TABLE apple_pushes (
        seq BIGSERIAL PRIMARY KEY,
        push_id TEXT COLLATE "C" NOT NULL UNIQUE,
        push_token TEXT COLLATE "C" NOT NULL,
        pass_type_id TEXT COLLATE "C" NOT NULL,
        state TEXT COLLATE "C" NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT COLLATE "C" NOT NULL,
        lease_until TEXT COLLATE "C",
        lease_owner TEXT COLLATE "C",
        last_error TEXT,
        created_at TEXT COLLATE "C" NOT NULL,
        ended_at TEXT COLLATE "C"
      );
      CREATE INDEX apple_pushes_due ON apple_pushes (next_attempt_at, seq) WHERE state = 'pending';
      CREATE INDEX apple_pushes_ended ON apple_pushes (ended_at) WHERE state <> 'pending';
      CREATE FUNCTION apple_pass_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO apple_pass_changes AS c (tid, changed_at)
          VALUES (NEW.tid, ${WHOLE_SECOND('floor(extract(epoch FROM clock_timestamp())) + 1')})
          ON CONFLICT (tid) DO UPDATE SET changed_at = GREATEST(excluded.changed_at,
            ${WHOLE_SECOND(`extract(epoch FROM c.changed_at::timestamptz) + 1`)});
        INSERT INTO apple_pushes (push_id, push_token, pass_type_id, state, next_attempt_at, created_at)
          SELECT 'push_' || replace(gen_random_uuid()::text, '-', ''), push_token, pass_type_id, 'pending',
            ${NOW_MS}, ${NOW_MS}
          FROM apple_pass_registrations WHERE serial = NEW.tid;
        RETURN NULL;
      END $$;
      CREATE TRIGGER apple_pass_changed
        AFTER UPDATE OF holder_name, ticket_type, ticket_token, revoked_at, attention, checkin_text ON tickets
        FOR EACH ROW WHEN (OLD.holder_name IS DISTINCT FROM NEW.holder_name
          OR OLD.ticket_type IS DISTINCT FROM NEW.ticket_type OR OLD.ticket_token IS DISTINCT FROM NEW.ticket_token
          OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.attention IS DISTINCT FROM NEW.attention
          OR OLD.checkin_text IS DISTINCT FROM NEW.checkin_text)
        EXECUTE FUNCTION apple_pass_changed();
    `,
  },
];
