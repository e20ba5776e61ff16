import pg from 'pg';
import type {
  AdminSessionRecord,
  ApiKeyRecord,
  ChangeRecord,
  ChangeType,
  CheckInAttempt,
  CheckInResult,
  CheckInVerdict,
  EnrollmentTokenRecord,
  EventCounters,
  EventRecord,
  NewApiKey,
  Page,
  RedeemResult,
  ConflictRecord,
  ReissueResult,
  ScanRecord,
  SigningKeyRecord,
  Store,
  TicketRecord,
} from '../store.ts';
import {
  DELETE_ADMIN_SESSION_SQL,
  GET_ADMIN_SESSION_SQL,
  INSERT_ADMIN_SESSION_SQL,
  PURGE_ADMIN_SESSIONS_SQL,
  searchPatterns,
  searchTicketsSql,
  TOUCH_ADMIN_SESSION_SQL,
} from '../console-queries.ts';
import { CONFLICT_COUNT_SQL, CONFLICT_DUPLICATES_SQL, CONFLICT_FIRSTS_SQL, groupConflicts } from '../conflicts.ts';
import { keyRefusal } from '../key-standing.ts';
import { redemption } from '../redeem.ts';
import { reissueRefusal } from '../reissue.ts';
import { type KnownAttempt, replayOrConflict } from '../replay.ts';
import { isStoreUnavailable } from '../unavailable.ts';
import { boundedPool, DEFAULT_POOL_TIMEOUTS, type PoolTimeouts, migrationPool } from './pool.ts';
import { page, type Row, SCAN_LOG_SQL, toScan, toSigningKey } from '../rows.ts';
import { CheckInBatcher, LOCK_IDEMPOTENCY, lockNumber } from './check-in-batch.ts';
import { POSTGRES_MIGRATIONS } from './migrations.ts';

/** Anything that runs a query: the pool (one statement, one implicit transaction) or a client inside BEGIN. */
interface Db {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>>;
}

/**
 * Advisory lock namespaces (the first key of the two-int form), chosen to be unlikely to collide
 * with another application sharing the database.
 */
const LOCK_MIGRATIONS = 0x54490001;
const LOCK_SIGNING_KEYS = 0x54490002;

async function all<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

async function one<T>(db: Db, sql: string, params: unknown[] = []): Promise<T | null> {
  return (await all<T>(db, sql, params))[0] ?? null;
}

/** SQL shared with SQLite (`?` placeholders) in PostgreSQL's numbered form. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const CONFLICT_FIRSTS = numbered(CONFLICT_FIRSTS_SQL);
const CONFLICT_DUPLICATES = numbered(CONFLICT_DUPLICATES_SQL);
const CONFLICT_COUNT = numbered(CONFLICT_COUNT_SQL);
const SEARCH_TICKETS = numbered(searchTicketsSql('lower'));

const TICKET_COLUMNS = [
  'tid',
  'eid',
  'holder_name',
  'ticket_type',
  'issued_at',
  'expires_at',
  'checked_in_at',
  'revoked_at',
  'revoke_reason',
  'ticket_token',
] as const;

/**
 * The shared store: PostgreSQL, for several issuer instances behaving as one. Every method is one
 * transaction: a single statement runs on the pool (PostgreSQL makes it atomic and gives it one
 * snapshot), several run between BEGIN and COMMIT on one client. Races between processes are
 * settled by row locks and transaction-scoped advisory locks, never by the process.
 */
export class PostgresStore implements Store {
  private readonly batcher: CheckInBatcher;

  private constructor(private readonly pool: pg.Pool) {
    this.batcher = new CheckInBatcher(pool, (attempt, decide) => this.checkInAlone(attempt, decide));
  }

  /** Connects and applies pending migrations; instances starting together migrate once. */
  static async open(url: string, timeouts: PoolTimeouts = DEFAULT_POOL_TIMEOUTS): Promise<PostgresStore> {
    const migrations = migrationPool(url, timeouts);
    try {
      await migrate(migrations);
    } finally {
      await migrations.end();
    }
    return new PostgresStore(boundedPool(url, timeouts));
  }

  private async tx<T>(work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that is gone or silent would only make the rollback wait too: it is destroyed
      // instead, and the server rolls the transaction back when it sees it closed.
      if (isStoreUnavailable(error)) broken = error as Error;
      else {
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
      }
      throw error;
    } finally {
      // A client whose rollback failed is in an unknown state: destroy it rather than reuse it.
      client.release(broken);
    }
  }

  /** Reads a setting; null when absent. */
  async getSetting(name: string): Promise<string | null> {
    return (
      (await one<{ value: string }>(this.pool, 'SELECT value FROM settings WHERE name = $1', [name]))?.value ?? null
    );
  }

  /** Writes a setting only if absent; returns the value that holds afterwards (first writer wins). */
  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return this.tx(async (db) => {
      await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
      // A second statement: its fresh snapshot sees a concurrent winner's committed row.
      return (await one<{ value: string }>(db, 'SELECT value FROM settings WHERE name = $1', [name]))!.value;
    });
  }

  /** Writes a setting, replacing any value it had. */
  async putSetting(name: string, value: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value',
      [name, value],
    );
  }

  /** Answers when a connection can be had and runs a trivial query. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Inserts a new event. */
  async createEvent(e: EventRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO events (eid, name, event_date, ends_at, created_at) VALUES ($1, $2, $3, $4, $5)',
      [e.eid, e.name, e.event_date, e.ends_at, e.created_at],
    );
  }

  /** The event, or null. */
  getEvent(eid: string): Promise<EventRecord | null> {
    return one<EventRecord>(this.pool, 'SELECT * FROM events WHERE eid = $1', [eid]);
  }

  /** Events in creation order, a page at a time (cursor: the last eid seen). */
  async listEvents(limit: number, after: string | null): Promise<Page<EventRecord>> {
    const rows = await all<EventRecord>(this.pool, 'SELECT * FROM events WHERE eid > $1 ORDER BY eid LIMIT $2', [
      after ?? '',
      limit + 1,
    ]);
    return page(rows, limit, (e) => e.eid);
  }

  /** Counts the event's tickets: issued, checked in, revoked, in conflict; read in one snapshot. */
  async countTickets(eid: string): Promise<EventCounters> {
    // One statement, so one snapshot.
    const row = (await one<Row>(
      this.pool,
      `SELECT COUNT(*) AS issued, COUNT(checked_in_at) AS checked_in, COUNT(revoked_at) AS revoked,
         (${CONFLICT_COUNT}) AS conflicts
       FROM tickets WHERE eid = $1`,
      [eid],
    ))!;
    // COUNT is BIGINT, which arrives as a string.
    return {
      issued: Number(row.issued),
      checked_in: Number(row.checked_in),
      revoked: Number(row.revoked),
      conflicts: Number(row.conflicts),
    };
  }

  /** Inserts all tickets or none. */
  async createTickets(tickets: TicketRecord[]): Promise<void> {
    // One statement whatever the batch size: one array parameter per column stays clear of the
    // 65,535 bind-parameter limit, and a single statement is all-or-none by itself.
    const columns = TICKET_COLUMNS.map((column) => tickets.map((ticket) => ticket[column]));
    await this.pool.query(
      `INSERT INTO tickets (${TICKET_COLUMNS.join(', ')})
       SELECT * FROM unnest(${TICKET_COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(', ')})`,
      columns,
    );
  }

  /** The ticket, or null. */
  getTicket(tid: string): Promise<TicketRecord | null> {
    return one<TicketRecord>(this.pool, 'SELECT * FROM tickets WHERE tid = $1', [tid]);
  }

  /** The event's tickets in issue order, a page at a time (cursor: the last tid seen). */
  async listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    const rows = await all<TicketRecord>(
      this.pool,
      'SELECT * FROM tickets WHERE eid = $1 AND tid > $2 ORDER BY tid LIMIT $3',
      [eid, after ?? '', limit + 1],
    );
    return page(rows, limit, (t) => t.tid);
  }

  /** Tickets whose holder name contains the query (case-insensitive) or whose tid starts with it, paged. */
  async searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    const { holder, tid } = searchPatterns(query);
    const rows = await all<TicketRecord>(this.pool, SEARCH_TICKETS, [eid, after ?? '', holder, tid, limit + 1]);
    return page(rows, limit, (t) => t.tid);
  }

  /** Revokes the ticket once (a second call keeps the first time and reason); null if unknown. */
  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return this.tx(async (db) => {
      const changed = await db.query(
        'UPDATE tickets SET revoked_at = $1, revoke_reason = $2 WHERE tid = $3 AND revoked_at IS NULL RETURNING eid',
        [at, reason, tid],
      );
      const eid = changed.rows[0]?.eid as string | undefined;
      if (eid !== undefined) await appendChange(db, eid, 'revoked', tid, at);
      return one<TicketRecord>(db, 'SELECT * FROM tickets WHERE tid = $1', [tid]);
    });
  }

  /** Replaces a fresh ticket's token if it is still `previousToken`, appending `token_superseded`; or refuses. */
  reissueTicket(
    tid: string,
    previousToken: string,
    nextToken: string,
    supersededJti: string | null,
    at: string,
  ): Promise<ReissueResult> {
    return this.tx(async (db): Promise<ReissueResult> => {
      const ticket = await one<TicketRecord>(db, 'SELECT * FROM tickets WHERE tid = $1 FOR UPDATE', [tid]);
      const refusal = reissueRefusal(ticket, previousToken);
      if (refusal !== null || !ticket) return { kind: 'refused', why: refusal ?? 'unknown' };
      await db.query('UPDATE tickets SET ticket_token = $1 WHERE tid = $2', [nextToken, tid]);
      await appendChange(db, ticket.eid, 'token_superseded', tid, at, { jti: supersededJti });
      return { kind: 'reissued', ticket: { ...ticket, ticket_token: nextToken } };
    });
  }

  /** The event's changes after a position, in order; positions commit in order (see appendChange). */
  async listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    const rows = await all<Row>(
      this.pool,
      'SELECT * FROM changes WHERE eid = $1 AND position > $2 ORDER BY position LIMIT $3',
      [eid, after, limit + 1],
    );
    // BIGINT arrives as a string; positions stay far below 2^53.
    const items = rows
      .slice(0, limit)
      .map((r) => ({ ...(r as unknown as ChangeRecord), position: Number(r.position) }));
    return { items, has_more: rows.length > limit };
  }

  /** The event's offline double entries, a page at a time, read in one snapshot. */
  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return this.tx(async (db) => {
      await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const firsts = page(await all<Row>(db, CONFLICT_FIRSTS, [eid, after ?? 0, limit + 1]), limit, (r) =>
        String(r.scan_id),
      );
      const from = firsts.items[0]?.scan_id;
      const to = firsts.items[firsts.items.length - 1]?.scan_id;
      const duplicates = from === undefined ? [] : await all<Row>(db, CONFLICT_DUPLICATES, [eid, from, to]);
      return { items: groupConflicts(firsts.items, duplicates), next_cursor: firsts.next_cursor };
    });
  }

  /** Inserts a new enrolment token (its hash only). */
  async createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at,
         key_expires_at, created_at, used_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        t.token_id,
        t.token_hash,
        t.eid,
        t.gate_id,
        t.expires_at,
        t.key_expires_at,
        t.created_at,
        t.used_at,
        t.revoked_at,
      ],
    );
  }

  /** Revokes an unused token (used or revoked ones are left as they are); null if unknown. */
  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return this.tx(async (db) => {
      await db.query(
        'UPDATE enrollment_tokens SET revoked_at = $1 WHERE token_id = $2 AND used_at IS NULL AND revoked_at IS NULL',
        [at, tokenId],
      );
      return one<EnrollmentTokenRecord>(db, 'SELECT * FROM enrollment_tokens WHERE token_id = $1', [tokenId]);
    });
  }

  /** Exchanges a token for an API key, or refuses; concurrent calls with one token see exactly one `enrolled`. */
  redeemEnrollmentToken(tokenHash: string, at: string, key: NewApiKey): Promise<RedeemResult> {
    return this.tx(async (db): Promise<RedeemResult> => {
      // The row lock makes concurrent redeemers queue; each then sees the token as the last one left it.
      const token = await one<EnrollmentTokenRecord>(
        db,
        'SELECT * FROM enrollment_tokens WHERE token_hash = $1 FOR UPDATE',
        [tokenHash],
      );
      const outcome = redemption(token, at, key);
      if ('refused' in outcome) return { kind: 'refused', why: outcome.refused };
      await db.query('UPDATE enrollment_tokens SET used_at = $1 WHERE token_id = $2', [at, outcome.token.token_id]);
      await insertApiKey(db, outcome.record);
      return { kind: 'enrolled', key: outcome.record, token: { ...outcome.token, used_at: at } };
    });
  }

  /** The API key with this hash, whatever its state, or null. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return one<ApiKeyRecord>(this.pool, 'SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
  }

  /** Records that the key was used at `at` (only moves last_seen_at forward). */
  async touchApiKey(apiKeyId: string, at: string): Promise<void> {
    await this.pool.query(
      'UPDATE api_keys SET last_seen_at = $1 WHERE api_key_id = $2 AND (last_seen_at IS NULL OR last_seen_at < $1)',
      [at, apiKeyId],
    );
  }

  /** Revokes the key once; null if unknown. */
  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return this.tx(async (db) => {
      await db.query('UPDATE api_keys SET revoked_at = $1 WHERE api_key_id = $2 AND revoked_at IS NULL', [
        at,
        apiKeyId,
      ]);
      return one<ApiKeyRecord>(db, 'SELECT * FROM api_keys WHERE api_key_id = $1', [apiKeyId]);
    });
  }

  /** The event's scanner records in api_key_id order, a page at a time. */
  async listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    const rows = await all<ApiKeyRecord>(
      this.pool,
      'SELECT * FROM api_keys WHERE eid = $1 AND api_key_id > $2 ORDER BY api_key_id LIMIT $3',
      [eid, after ?? '', limit + 1],
    );
    return page(rows, limit, (k) => k.api_key_id);
  }

  /** The API key an enrolment token was exchanged for, or null. */
  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return one<ApiKeyRecord>(this.pool, 'SELECT * FROM api_keys WHERE token_id = $1', [tokenId]);
  }

  /**
   * Applies one check-in attempt atomically; same-key attempts and same-ticket attempts are
   * serialized across processes, and every attempt is appended to the scan log. Attempts arriving
   * together share one transaction (see CheckInBatcher); each is still decided on its own.
   */
  checkIn(attempt: CheckInAttempt, decide: (ticket: TicketRecord | null) => CheckInVerdict): Promise<CheckInResult> {
    return this.batcher.run(attempt, decide);
  }

  /** How many check-in batches were committed (for tests and benchmarks). */
  get committedBatches(): number {
    return this.batcher.committedBatches;
  }

  /** One check-in in a transaction of its own: what a batch falls back to when it fails as a whole. */
  private checkInAlone(
    attempt: CheckInAttempt,
    decide: (ticket: TicketRecord | null) => CheckInVerdict,
  ): Promise<CheckInResult> {
    return this.tx(async (db): Promise<CheckInResult> => {
      // Lock order is always key then ticket, so two attempts can never wait on each other in a cycle.
      await db.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_IDEMPOTENCY, lockNumber(attempt)]);
      const key = await one<ApiKeyRecord>(db, 'SELECT revoked_at, expires_at FROM api_keys WHERE api_key_id = $1', [
        attempt.api_key_id,
      ]);
      const refusal = keyRefusal(key, attempt.received_at);
      if (refusal) return refusal;
      const ticket = await one<TicketRecord>(db, 'SELECT * FROM tickets WHERE tid = $1 FOR UPDATE', [attempt.tid]);
      // Read committed: this statement starts after the key lock was granted, so it sees the answer
      // of any attempt with the same key that held the lock before.
      const known = await one<KnownAttempt>(
        db,
        'SELECT fingerprint, http_status, body, outcome, reason FROM idempotency_keys WHERE eid = $1 AND idempotency_key = $2',
        [attempt.eid, attempt.idempotency_key],
      );
      if (known) {
        const result = replayOrConflict(attempt, known);
        await logScan(db, attempt, result.outcome, result.reason, result.replay);
        return result.result;
      }
      const verdict = decide(ticket);
      let checkedIn = false;
      if (verdict.check_in_at !== null) {
        const changed = await db.query(
          'UPDATE tickets SET checked_in_at = $1 WHERE tid = $2 AND checked_in_at IS NULL',
          [verdict.check_in_at, attempt.tid],
        );
        checkedIn = (changed.rowCount ?? 0) > 0;
      }
      await db.query(
        `INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          attempt.eid,
          attempt.idempotency_key,
          attempt.fingerprint,
          verdict.answer.http_status,
          JSON.stringify(verdict.answer.body),
          verdict.outcome,
          verdict.reason,
          attempt.received_at,
        ],
      );
      await logScan(db, attempt, verdict.outcome, verdict.reason, false);
      // Last: the feed's per-event lock is then held only until the commit that follows.
      if (checkedIn) {
        await appendChange(db, attempt.eid, 'checked_in', attempt.tid, verdict.check_in_at!, {
          scanner_id: attempt.scanner_id,
          gate_id: attempt.gate_id,
        });
      }
      return { kind: 'answered', answer: verdict.answer, replay: false };
    });
  }

  /** Appends a refused attempt (outcome `refused`, with the reason) to the event's scan log; nothing else changes. */
  async logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    await logScan(this.pool, attempt, 'refused', reason, false);
  }

  /** The event's scan log in order, a page at a time (cursor: the last scan_id seen). */
  async listScans(eid: string, limit: number, after: number | null): Promise<Page<ScanRecord>> {
    const rows = await all<Row>(
      this.pool,
      `${SCAN_LOG_SQL} WHERE s.eid = $1 AND s.scan_id > $2 ORDER BY s.scan_id LIMIT $3`,
      [eid, after ?? 0, limit + 1],
    );
    return page(rows.map(toScan), limit, (s) => String(s.scan_id));
  }

  /** Inserts a signing key and retires every other active one, atomically. */
  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return this.tx(async (db) => {
      // Without the lock, two concurrent rotations would each miss the other's new key and both stay active.
      await lockSigningKeys(db);
      await db.query('UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL', [key.created_at]);
      await insertSigningKey(db, key);
    });
  }

  /** Inserts the first signing key unless an active one exists; returns the active key. */
  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return this.tx(async (db) => {
      await lockSigningKeys(db);
      const active = await activeSigningKey(db);
      if (active) return active;
      await insertSigningKey(db, candidate);
      return candidate;
    });
  }

  /** The key with this kid (removed ones included), or null. */
  async getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    const row = await one<Row>(this.pool, 'SELECT * FROM signing_keys WHERE kid = $1', [kid]);
    return row ? toSigningKey(row) : null;
  }

  /** The active key (the newest not retired), or null. */
  getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return activeSigningKey(this.pool);
  }

  /** All keys, newest first. */
  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return (await all<Row>(this.pool, 'SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC')).map(
      toSigningKey,
    );
  }

  /** Marks a retired key removed; refuses the active key. */
  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return this.tx(async (db) => {
      // Lock the row so a concurrent rotation cannot change its state between the check and the update.
      const key = await one<Row>(db, 'SELECT retired_at FROM signing_keys WHERE kid = $1 FOR UPDATE', [kid]);
      if (!key) return 'unknown';
      if (key.retired_at === null) return 'active';
      await db.query('UPDATE signing_keys SET removed_at = $1 WHERE kid = $2 AND removed_at IS NULL', [at, kid]);
      return 'removed';
    });
  }

  /** Inserts a console session, deleting those whose absolute end has passed. */
  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return this.tx(async (db) => {
      await db.query(numbered(PURGE_ADMIN_SESSIONS_SQL), [session.created_at]);
      const { session_hash, admin_token_tag, created_at, last_seen_at, expires_at } = session;
      const values = [session_hash, admin_token_tag, created_at, last_seen_at, expires_at];
      await db.query(numbered(INSERT_ADMIN_SESSION_SQL), values);
    });
  }

  /** The session with this hash, or null. */
  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return one<AdminSessionRecord>(this.pool, numbered(GET_ADMIN_SESSION_SQL), [sessionHash]);
  }

  /** Records that the session was used at `at` (only moves last_seen_at forward). */
  async touchAdminSession(sessionHash: string, at: string): Promise<void> {
    await this.pool.query(numbered(TOUCH_ADMIN_SESSION_SQL), [at, sessionHash, at]);
  }

  /** Deletes the session; false when there was none. */
  async deleteAdminSession(sessionHash: string): Promise<boolean> {
    return ((await this.pool.query(numbered(DELETE_ADMIN_SESSION_SQL), [sessionHash])).rowCount ?? 0) > 0;
  }

  /** Releases every pooled connection. */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}

/** Applies pending migrations under a session advisory lock, so concurrent starts migrate one at a time. */
async function migrate(pool: pg.Pool): Promise<void> {
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

async function logScan(
  db: Db,
  attempt: CheckInAttempt,
  outcome: string,
  reason: string | null,
  replay: boolean,
): Promise<void> {
  await db.query(
    `INSERT INTO scans (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at,
       received_at, outcome, reason, replay, admitted_offline, turned_away_offline)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      attempt.eid,
      attempt.tid,
      attempt.api_key_id,
      attempt.scanner_id,
      attempt.gate_id,
      attempt.idempotency_key,
      attempt.scanned_at,
      attempt.received_at,
      outcome,
      reason,
      replay,
      attempt.admitted_offline === true,
      attempt.admitted_offline === false,
    ],
  );
}

/**
 * Appends a change at the event's next position, inside the caller's transaction. The counter row's
 * lock is held until that transaction ends, so positions are handed out in commit order and never
 * skipped (a rolled-back transaction gives its position back): a reader that saw position p has
 * seen every position below p. A sequence would not do: a lower value can commit after a higher one.
 */
async function appendChange(
  db: Db,
  eid: string,
  type: ChangeType,
  tid: string,
  at: string,
  extra: { scanner_id?: string; gate_id?: string | null; jti?: string | null } = {},
): Promise<void> {
  await db.query(
    `WITH next AS (
       INSERT INTO change_counters (eid, last_position) VALUES ($1, 1)
       ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + 1
       RETURNING last_position)
     INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, jti)
     SELECT $1, last_position, $2, $3, $4, $5, $6, $7 FROM next`,
    [eid, type, tid, at, extra.scanner_id ?? null, extra.gate_id ?? null, extra.jti ?? null],
  );
}

async function insertApiKey(db: Db, k: ApiKeyRecord): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (api_key_id, key_hash, eid, gate_id, scanner_id, scanner_name,
       scanner_platform, token_id, enrolled_at, expires_at, last_seen_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      k.api_key_id,
      k.key_hash,
      k.eid,
      k.gate_id,
      k.scanner_id,
      k.scanner_name,
      k.scanner_platform,
      k.token_id,
      k.enrolled_at,
      k.expires_at,
      k.last_seen_at,
      k.revoked_at,
    ],
  );
}

async function lockSigningKeys(db: Db): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, 0)', [LOCK_SIGNING_KEYS]);
}

async function insertSigningKey(db: Db, key: SigningKeyRecord): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (kid, public_jwk, private_key_enc, created_at, retired_at, removed_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [key.kid, JSON.stringify(key.public_jwk), key.private_key_enc, key.created_at, key.retired_at, key.removed_at],
  );
}

async function activeSigningKey(db: Db): Promise<SigningKeyRecord | null> {
  const row = await one<Row>(
    db,
    'SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1',
  );
  return row ? toSigningKey(row) : null;
}
