import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
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
import { page, type Row, SCAN_LOG_SQL, toScan, toSigningKey } from '../rows.ts';
import { GroupCommit } from './group-commit.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { WalSync } from './wal-sync.ts';
import { Checkpointer } from './checkpointer.ts';

/**
 * The embedded store: one SQLite file in WAL mode. Node runs one transaction at a time, so
 * every method is serialized; each commit is durable (fsync of the WAL, see WalSync) before the answer.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly groupCommit: GroupCommit;
  private readonly walSync: WalSync | null;
  /** Checkpoints the WAL beside the event loop (file databases in WAL mode only). */
  readonly checkpointer: Checkpointer | null;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    // Only hashes and sealed keys are inside, but an event's guest list is nobody else's business;
    // SQLite gives its -wal and -shm files the same mode.
    if (path !== ':memory:') chmodSync(path, 0o600);
    const journal = this.db.pragma('journal_mode = WAL', { simple: true });
    // Commits are made durable by one fsync of the WAL each, run off the event loop (see WalSync);
    // where there is no WAL file (a memory database), SQLite syncs as it commits.
    this.walSync = path !== ':memory:' && journal === 'wal' ? new WalSync(`${resolve(path)}-wal`) : null;
    this.db.pragma(this.walSync ? 'synchronous = NORMAL' : 'synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // SQLite's own lower() folds ASCII only; ticket search must find "Émile" from "émile" as PostgreSQL does.
    this.db.function('fold_case', { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? text.toLowerCase() : text,
    );
    this.migrate();
    // Each check-in of a group commit runs in a savepoint, and SQLite copies every page a savepoint
    // first changes into a sub-journal, a temporary file once it passes 64 KiB: a group wrote each
    // check-in's pages (about nine) to it, two writes a page, a third of the store's time. In memory,
    // the copies cost a few microseconds. Nothing else here needs temporary storage of any size: lists
    // are read in index order, and the conflicts report sorts one page's duplicates and counts the
    // conflicting tickets. The migrations above run before, with SQLite's default.
    this.db.pragma('temp_store = MEMORY');
    this.groupCommit = new GroupCommit(this.db, () => this.durable());
    this.checkpointer = null;
    if (this.walSync) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(resolve(path), () => this.db.pragma('wal_autocheckpoint = 1000'));
    }
  }

  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      this.db
        .transaction(() => {
          this.db.exec(migration.sql);
          this.db
            .prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)')
            .run(migration.version, new Date().toISOString());
        })
        .immediate();
    }
  }

  /** Prepared once per SQL text: preparing is most of the cost of a small query. */
  private statement(sql: string): Database.Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  private one<T>(sql: string, ...params: unknown[]): T | null {
    return (this.statement(sql).get(...params) as T | undefined) ?? null;
  }

  private all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  private run(sql: string, ...params: unknown[]): number {
    return this.statement(sql).run(...params).changes;
  }

  /** One IMMEDIATE transaction; resolves once it is durable. */
  private async tx<T>(fn: () => T): Promise<T> {
    const result = this.db.transaction(fn).immediate();
    await this.durable();
    return result;
  }

  /** Resolves once every commit made so far is on disk. */
  private durable(): Promise<void> {
    return this.walSync ? this.walSync.sync() : Promise.resolve();
  }

  /** How many fsyncs made commits durable (null when SQLite syncs by itself): for tests and benchmarks. */
  get walSyncs(): number | null {
    return this.walSync?.syncs ?? null;
  }

  async getSetting(name: string): Promise<string | null> {
    return this.one<{ value: string }>('SELECT value FROM settings WHERE name = ?', name)?.value ?? null;
  }

  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return this.tx(() => {
      this.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
      return this.one<{ value: string }>('SELECT value FROM settings WHERE name = ?', name)!.value;
    });
  }

  putSetting(name: string, value: string): Promise<void> {
    return this.tx(() => {
      this.run(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = ?',
        name,
        value,
        value,
      );
    });
  }

  async ping(): Promise<void> {
    this.one('SELECT 1');
  }

  createEvent(e: EventRecord): Promise<void> {
    return this.tx(() => {
      this.run(
        'INSERT INTO events (eid, name, event_date, ends_at, created_at) VALUES (?, ?, ?, ?, ?)',
        e.eid,
        e.name,
        e.event_date,
        e.ends_at,
        e.created_at,
      );
    });
  }

  async getEvent(eid: string): Promise<EventRecord | null> {
    return this.one<EventRecord>('SELECT * FROM events WHERE eid = ?', eid);
  }

  async listEvents(limit: number, after: string | null): Promise<Page<EventRecord>> {
    const rows = this.all<EventRecord>(
      'SELECT * FROM events WHERE eid > ? ORDER BY eid LIMIT ?',
      after ?? '',
      limit + 1,
    );
    return page(rows, limit, (e) => e.eid);
  }

  countTickets(eid: string): Promise<EventCounters> {
    // A read transaction: the counts and the conflicts come from one snapshot.
    return Promise.resolve(
      this.db.transaction(() => ({
        ...this.one<Omit<EventCounters, 'conflicts'>>(
          `SELECT COUNT(*) AS issued, COUNT(checked_in_at) AS checked_in, COUNT(revoked_at) AS revoked
           FROM tickets WHERE eid = ?`,
          eid,
        )!,
        conflicts: this.one<{ conflicts: number }>(CONFLICT_COUNT_SQL, eid)!.conflicts,
      }))(),
    );
  }

  createTickets(tickets: TicketRecord[]): Promise<void> {
    return this.tx(() => {
      const insert = this.statement(
        `INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, expires_at,
           checked_in_at, revoked_at, revoke_reason, ticket_token)
         VALUES (@tid, @eid, @holder_name, @ticket_type, @issued_at, @expires_at,
           @checked_in_at, @revoked_at, @revoke_reason, @ticket_token)`,
      );
      for (const ticket of tickets) insert.run(ticket);
    });
  }

  async getTicket(tid: string): Promise<TicketRecord | null> {
    const ticket = this.one<TicketRecord>('SELECT * FROM tickets WHERE tid = ?', tid);
    // What a scanner reads must already be on disk (every commit it could see asked for its fsync).
    await this.walSync?.settled();
    return ticket;
  }

  async listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    const rows = this.all<TicketRecord>(
      'SELECT * FROM tickets WHERE eid = ? AND tid > ? ORDER BY tid LIMIT ?',
      eid,
      after ?? '',
      limit + 1,
    );
    return page(rows, limit, (t) => t.tid);
  }

  async searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    const { holder, tid } = searchPatterns(query);
    const rows = this.all<TicketRecord>(searchTicketsSql('fold_case'), eid, after ?? '', holder, tid, limit + 1);
    return page(rows, limit, (t) => t.tid);
  }

  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return this.tx(() => {
      const changed = this.run(
        'UPDATE tickets SET revoked_at = ?, revoke_reason = ? WHERE tid = ? AND revoked_at IS NULL',
        at,
        reason,
        tid,
      );
      const ticket = this.one<TicketRecord>('SELECT * FROM tickets WHERE tid = ?', tid);
      if (changed > 0 && ticket) this.appendChange(ticket.eid, 'revoked', tid, at);
      return ticket;
    });
  }

  reissueTicket(
    tid: string,
    previousToken: string,
    nextToken: string,
    supersededJti: string | null,
    at: string,
  ): Promise<ReissueResult> {
    return this.tx((): ReissueResult => {
      const ticket = this.one<TicketRecord>('SELECT * FROM tickets WHERE tid = ?', tid);
      const refusal = reissueRefusal(ticket, previousToken);
      if (refusal !== null || !ticket) return { kind: 'refused', why: refusal ?? 'unknown' };
      this.run('UPDATE tickets SET ticket_token = ? WHERE tid = ?', nextToken, tid);
      this.appendChange(ticket.eid, 'token_superseded', tid, at, { jti: supersededJti });
      return { kind: 'reissued', ticket: { ...ticket, ticket_token: nextToken } };
    });
  }

  /** Appends a change at the event's next position; runs inside the caller's transaction (SQLite serializes them). */
  private appendChange(
    eid: string,
    type: ChangeType,
    tid: string,
    at: string,
    extra: { scanner_id?: string; gate_id?: string | null; jti?: string | null } = {},
  ): void {
    const position = this.one<{ last_position: number }>(
      `INSERT INTO change_counters (eid, last_position) VALUES (?, 1)
       ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + 1 RETURNING last_position`,
      eid,
    )!.last_position;
    this.run(
      'INSERT INTO changes (eid, position, type, tid, at, scanner_id, gate_id, jti) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      eid,
      position,
      type,
      tid,
      at,
      extra.scanner_id ?? null,
      extra.gate_id ?? null,
      extra.jti ?? null,
    );
  }

  async listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    const rows = this.all<ChangeRecord>(
      'SELECT * FROM changes WHERE eid = ? AND position > ? ORDER BY position LIMIT ?',
      eid,
      after,
      limit + 1,
    );
    await this.walSync?.settled();
    return { items: rows.slice(0, limit), has_more: rows.length > limit };
  }

  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return Promise.resolve(
      this.db.transaction(() => {
        const firsts = page(this.all<Row>(CONFLICT_FIRSTS_SQL, eid, after ?? 0, limit + 1), limit, (r) =>
          String(r.scan_id),
        );
        const from = firsts.items[0]?.scan_id;
        const to = firsts.items[firsts.items.length - 1]?.scan_id;
        const duplicates = from === undefined ? [] : this.all<Row>(CONFLICT_DUPLICATES_SQL, eid, from, to);
        return { items: groupConflicts(firsts.items, duplicates), next_cursor: firsts.next_cursor };
      })(),
    );
  }

  createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    return this.tx(() => {
      this.run(
        `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at,
           key_expires_at, created_at, used_at, revoked_at)
         VALUES (@token_id, @token_hash, @eid, @gate_id, @expires_at, @key_expires_at,
           @created_at, @used_at, @revoked_at)`,
        t,
      );
    });
  }

  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return this.tx(() => {
      this.run(
        'UPDATE enrollment_tokens SET revoked_at = ? WHERE token_id = ? AND used_at IS NULL AND revoked_at IS NULL',
        at,
        tokenId,
      );
      return this.one<EnrollmentTokenRecord>('SELECT * FROM enrollment_tokens WHERE token_id = ?', tokenId);
    });
  }

  redeemEnrollmentToken(tokenHash: string, at: string, key: NewApiKey): Promise<RedeemResult> {
    return this.tx((): RedeemResult => {
      const token = this.one<EnrollmentTokenRecord>('SELECT * FROM enrollment_tokens WHERE token_hash = ?', tokenHash);
      const outcome = redemption(token, at, key);
      if ('refused' in outcome) return { kind: 'refused', why: outcome.refused };
      this.run('UPDATE enrollment_tokens SET used_at = ? WHERE token_id = ?', at, outcome.token.token_id);
      this.run(
        `INSERT INTO api_keys (api_key_id, key_hash, eid, gate_id, scanner_id, scanner_name,
           scanner_platform, token_id, enrolled_at, expires_at, last_seen_at, revoked_at)
         VALUES (@api_key_id, @key_hash, @eid, @gate_id, @scanner_id, @scanner_name,
           @scanner_platform, @token_id, @enrolled_at, @expires_at, @last_seen_at, @revoked_at)`,
        outcome.record,
      );
      return { kind: 'enrolled', key: outcome.record, token: { ...outcome.token, used_at: at } };
    });
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE key_hash = ?', keyHash);
  }

  touchApiKey(apiKeyId: string, at: string): Promise<void> {
    return this.tx(() => {
      this.run(
        'UPDATE api_keys SET last_seen_at = ? WHERE api_key_id = ? AND (last_seen_at IS NULL OR last_seen_at < ?)',
        at,
        apiKeyId,
        at,
      );
    });
  }

  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return this.tx(() => {
      this.run('UPDATE api_keys SET revoked_at = ? WHERE api_key_id = ? AND revoked_at IS NULL', at, apiKeyId);
      return this.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE api_key_id = ?', apiKeyId);
    });
  }

  async listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    const rows = this.all<ApiKeyRecord>(
      'SELECT * FROM api_keys WHERE eid = ? AND api_key_id > ? ORDER BY api_key_id LIMIT ?',
      eid,
      after ?? '',
      limit + 1,
    );
    return page(rows, limit, (k) => k.api_key_id);
  }

  async findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return this.one<ApiKeyRecord>('SELECT * FROM api_keys WHERE token_id = ?', tokenId);
  }

  /** Check-ins arriving together share one commit (see GroupCommit); each is still atomic on its own. */
  checkIn(attempt: CheckInAttempt, decide: (ticket: TicketRecord | null) => CheckInVerdict): Promise<CheckInResult> {
    return this.groupCommit.run((): CheckInResult => {
      const key = this.one<ApiKeyRecord>(
        'SELECT revoked_at, expires_at FROM api_keys WHERE api_key_id = ?',
        attempt.api_key_id,
      );
      const refusal = keyRefusal(key, attempt.received_at);
      if (refusal) return refusal;
      const known = this.one<KnownAttempt>(
        'SELECT fingerprint, http_status, body, outcome, reason FROM idempotency_keys WHERE eid = ? AND idempotency_key = ?',
        attempt.eid,
        attempt.idempotency_key,
      );
      if (known) {
        const result = replayOrConflict(attempt, known);
        this.logScan(attempt, result.outcome, result.reason, result.replay);
        return result.result;
      }
      const verdict = decide(this.one<TicketRecord>('SELECT * FROM tickets WHERE tid = ?', attempt.tid));
      if (verdict.check_in_at !== null) {
        const changed = this.run(
          'UPDATE tickets SET checked_in_at = ? WHERE tid = ? AND checked_in_at IS NULL',
          verdict.check_in_at,
          attempt.tid,
        );
        if (changed > 0) {
          this.appendChange(attempt.eid, 'checked_in', attempt.tid, verdict.check_in_at, {
            scanner_id: attempt.scanner_id,
            gate_id: attempt.gate_id,
          });
        }
      }
      this.run(
        `INSERT INTO idempotency_keys (eid, idempotency_key, fingerprint, http_status, body, outcome, reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        attempt.eid,
        attempt.idempotency_key,
        attempt.fingerprint,
        verdict.answer.http_status,
        JSON.stringify(verdict.answer.body),
        verdict.outcome,
        verdict.reason,
        attempt.received_at,
      );
      this.logScan(attempt, verdict.outcome, verdict.reason, false);
      return { kind: 'answered', answer: verdict.answer, replay: false };
    });
  }

  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    return this.tx(() => this.logScan(attempt, 'refused', reason, false));
  }

  private logScan(attempt: CheckInAttempt, outcome: string, reason: string | null, replay: boolean): void {
    this.run(
      `INSERT INTO scans (eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at,
         received_at, outcome, reason, replay, admitted_offline, turned_away_offline)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      replay ? 1 : 0,
      attempt.admitted_offline === true ? 1 : 0,
      attempt.admitted_offline === false ? 1 : 0,
    );
  }

  async listScans(eid: string, limit: number, after: number | null): Promise<Page<ScanRecord>> {
    const rows = this.all<Row>(
      `${SCAN_LOG_SQL} WHERE s.eid = ? AND s.scan_id > ? ORDER BY s.scan_id LIMIT ?`,
      eid,
      after ?? 0,
      limit + 1,
    ).map(toScan);
    return page(rows, limit, (s) => String(s.scan_id));
  }

  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return this.tx(() => {
      this.run('UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL', key.created_at);
      this.insertSigningKey(key);
    });
  }

  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return this.tx(() => {
      const active = this.activeSigningKey();
      if (active) return active;
      this.insertSigningKey(candidate);
      return candidate;
    });
  }

  private insertSigningKey(key: SigningKeyRecord): void {
    this.run(
      `INSERT INTO signing_keys (kid, public_jwk, private_key_enc, created_at, retired_at, removed_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      key.kid,
      JSON.stringify(key.public_jwk),
      key.private_key_enc,
      key.created_at,
      key.retired_at,
      key.removed_at,
    );
  }

  private activeSigningKey(): SigningKeyRecord | null {
    const row = this.one<Row>('SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1');
    return row ? toSigningKey(row) : null;
  }

  async getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    const row = this.one<Row>('SELECT * FROM signing_keys WHERE kid = ?', kid);
    return row ? toSigningKey(row) : null;
  }

  async getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return this.activeSigningKey();
  }

  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    return this.all<Row>('SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC').map(toSigningKey);
  }

  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return this.tx(() => {
      const key = this.one<Row>('SELECT retired_at FROM signing_keys WHERE kid = ?', kid);
      if (!key) return 'unknown';
      if (key.retired_at === null) return 'active';
      this.run('UPDATE signing_keys SET removed_at = ? WHERE kid = ? AND removed_at IS NULL', at, kid);
      return 'removed';
    });
  }

  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return this.tx(() => {
      this.run(PURGE_ADMIN_SESSIONS_SQL, session.created_at);
      const { session_hash, admin_token_tag, created_at, last_seen_at, expires_at } = session;
      this.run(INSERT_ADMIN_SESSION_SQL, session_hash, admin_token_tag, created_at, last_seen_at, expires_at);
    });
  }

  async getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return this.one<AdminSessionRecord>(GET_ADMIN_SESSION_SQL, sessionHash);
  }

  touchAdminSession(sessionHash: string, at: string): Promise<void> {
    return this.tx(() => {
      this.run(TOUCH_ADMIN_SESSION_SQL, at, sessionHash, at);
    });
  }

  deleteAdminSession(sessionHash: string): Promise<boolean> {
    return this.tx(() => this.run(DELETE_ADMIN_SESSION_SQL, sessionHash) > 0);
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    await this.walSync?.close();
    if (this.db.open) this.db.close();
  }
}
