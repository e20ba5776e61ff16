import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulAttempt, AnnulResult, AnnulSeen } from '../annul.ts';
import * as annul from './annul.ts';
import type { TicketTypeRules } from '@ticket-issuer/protocol';
import type {
  AttemptResult,
  ClaimedMessage,
  ClaimRequest,
  DeliveryRecord,
  OutboxMessage,
  UpkeepDone,
  UpkeepRequest,
  WebhookChange,
  WebhookRecord,
} from '../webhook-records.ts';
import * as outbox from './outbox.ts';
import * as outboxUpkeep from './outbox-upkeep.ts';
import * as webhooks from './webhooks.ts';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type {
  AdminSessionRecord,
  ArrivalCount,
  ApiKeyRecord,
  ChangeRecord,
  CheckInAttempt,
  CheckInResult,
  CheckInDecider,
  PresenceDecider,
  ConflictRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  EventCounters,
  EventRecord,
  NewApiKey,
  Page,
  RecentScanPage,
  RedeemResult,
  ReissueResult,
  ScannerNamer,
  ScanLogPage,
  SigningKeyRecord,
  Store,
  TicketRecord,
  TicketTypeRecord,
  EventSettings,
  GateRecord,
  Occupancy,
  Presence,
} from '../store.ts';
import {
  checkIn,
  getEntries,
  getPresence,
  withPresence,
  listScans,
  logRefusedAttempt,
  occupancy,
} from './check-ins.ts';
import { Checkpointer } from './checkpointer.ts';
import { SqliteContext } from './context.ts';
import { createEvent, getEvent, listEvents, updateEventSettings } from './events.ts';
import { arrivals, countTickets } from './counters.ts';
import { listRecentScans } from './scan-log.ts';
import * as gates from './gates.ts';
import * as ticketTypes from './ticket-types.ts';
import { listChanges, listConflicts } from './feed.ts';
import { GroupCommit } from './group-commit.ts';
import { migrate } from './migrations.ts';
import {
  createEnrollmentToken,
  findApiKey,
  findApiKeyByToken,
  listEnrollmentTokens,
  listApiKeys,
  redeemEnrollmentToken,
  revokeApiKey,
  revokeEnrollmentToken,
  touchApiKey,
} from './scanners.ts';
import { createAdminSession, deleteAdminSession, getAdminSession, touchAdminSession } from './sessions.ts';
import { SqlitePeopleStore } from './people.ts';
import type { PeopleStore } from '../people-store.ts';
import { getSetting, ping, putSetting, putSettingIfAbsent } from './settings.ts';
import {
  addSigningKey,
  ensureSigningKey,
  getActiveSigningKey,
  getSigningKey,
  listSigningKeys,
  removeSigningKey,
} from './signing-keys.ts';
import {
  createTickets,
  findHolders,
  getTicket,
  listTickets,
  reissueTicket,
  revokeTicket,
  searchTickets,
} from './tickets.ts';
import type { HolderMatch } from '../holder-search.ts';
import { updateTicketNotes } from './ticket-notes.ts';
import { WalSync } from './wal-sync.ts';
import { sqliteAudit } from './audit.ts';
import type { AuditStore } from '../audit-store.ts';
import { sqliteSso } from './sso.ts';
import type { SsoStore } from '../sso-store.ts';
import * as autoExit from './auto-exit.ts';
import type { AutoExitEvent, AutoExitRun } from '../auto-exit.ts';
import { searchKey, searchWords } from '../search-key.ts';
import type { TicketNotesChange } from '../ticket-notes.ts';
import { OWNING_EVENT_SQL, type OwnedResource } from '../owning-event.ts';

/** The WAL's size from which a worker checkpoints it (the migrations' pages are checkpointed at start). */
const CHECKPOINT_FROM_BYTES = 1024 * 1024;

/**
 * The embedded store: one SQLite file in WAL mode. Node runs one transaction at a time, so
 * every method is serialized; each commit is durable (fsync of the WAL, see WalSync) before the answer.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  /** The connection, its prepared statements and the transaction helpers every concern file uses. */
  private readonly ctx: SqliteContext;
  private readonly groupCommit: GroupCommit;
  private readonly walSync: WalSync | null;
  readonly audit: AuditStore;
  readonly sso: SsoStore;
  /**
   * Checkpoints the WAL beside the event loop (file databases in WAL mode only), from when the WAL
   * first holds CHECKPOINT_FROM_BYTES: until then there is nothing worth copying, and an idle issuer
   * runs no worker thread (a thread is a JavaScript heap of its own: about 13 MiB).
   */
  checkpointer: Checkpointer | null = null;
  private closing = false;
  readonly people: PeopleStore;
  /** One connection, whose group commit gathers concurrent transactions: many at once cost nothing more. */
  readonly uploadConcurrency = 64;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    // Only hashes and sealed keys are inside, but an event's guest list is nobody else's business;
    // SQLite gives its -wal and -shm files the same mode.
    if (path !== ':memory:') chmodSync(path, 0o600);
    const journal = this.db.pragma('journal_mode = WAL', { simple: true });
    // Commits are made durable by one fsync of the WAL each, run off the event loop (see WalSync);
    // where there is no WAL file (a memory database), SQLite syncs as it commits.
    this.walSync =
      path !== ':memory:' && journal === 'wal'
        ? new WalSync(`${resolve(path)}-wal`, {
            bytes: CHECKPOINT_FROM_BYTES,
            then: () => this.startCheckpointer(path),
          })
        : null;
    this.ctx = new SqliteContext(this.db, this.walSync);
    this.audit = sqliteAudit(this.ctx);
    this.people = new SqlitePeopleStore(this.ctx);
    this.sso = sqliteSso(this.ctx);
    this.db.pragma(this.walSync ? 'synchronous = NORMAL' : 'synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // The search key of a holder name (see searchKey), for the migration that fills `search_name`.
    this.db.function('search_key', { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? searchKey(text) : text,
    );
    // A holder name's words as the finder at the gate ranks them (see searchWords), for version 21.
    this.db.function('search_words', { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? searchWords(text) : text,
    );
    // What the migrations wrote goes into the database file at once (start-up, off any request): left in
    // the WAL, a fresh database's schema alone filled most of the size that starts the checkpointer.
    if (migrate(this.db) > 0 && this.walSync) this.db.pragma('wal_checkpoint(TRUNCATE)');
    // Each check-in of a group commit runs in a savepoint, and SQLite copies every page a savepoint
    // first changes into a sub-journal, a temporary file once it passes 64 KiB: a group wrote each
    // check-in's pages (about nine) to it, two writes a page, a third of the store's time. In memory,
    // the copies cost a few microseconds. Nothing else here needs temporary storage of any size: lists
    // are read in index order, and the conflicts report sorts one page's duplicates and counts the
    // conflicting tickets. The migrations above run before, with SQLite's default.
    this.db.pragma('temp_store = MEMORY');
    this.groupCommit = new GroupCommit(this.db, () => this.ctx.durable());
    if (this.walSync) this.db.pragma('wal_autocheckpoint = 0');
  }

  /** Starts checkpointing from a worker thread (once; never while closing). */
  private startCheckpointer(path: string): void {
    if (this.closing || this.checkpointer !== null) return;
    this.checkpointer = new Checkpointer(resolve(path), () => this.db.pragma('wal_autocheckpoint = 1000'));
  }

  /** How many fsyncs made commits durable (null when SQLite syncs by itself): for tests and benchmarks. */
  get walSyncs(): number | null {
    return this.walSync?.syncs ?? null;
  }

  getSetting(name: string): Promise<string | null> {
    return getSetting(this.ctx, name);
  }

  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return putSettingIfAbsent(this.ctx, name, value);
  }

  putSetting(name: string, value: string): Promise<void> {
    return putSetting(this.ctx, name, value);
  }

  ping(): Promise<void> {
    return ping(this.ctx);
  }

  createEvent(e: EventRecord): Promise<void> {
    return createEvent(this.ctx, e);
  }

  getEvent(eid: string): Promise<EventRecord | null> {
    return getEvent(this.ctx, eid);
  }

  listEvents(limit: number, after: string | null, only: readonly string[] | null = null): Promise<Page<EventRecord>> {
    return listEvents(this.ctx, limit, after, only);
  }

  async eventOf(resource: OwnedResource, id: string): Promise<string | null> {
    return this.ctx.one<{ eid: string }>(OWNING_EVENT_SQL[resource], id)?.eid ?? null;
  }

  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null> {
    return updateEventSettings(this.ctx, eid, settings);
  }

  putGate(gate: GateRecord): Promise<void> {
    return gates.putGate(this.ctx, gate);
  }

  getGate(eid: string, gateId: string): Promise<GateRecord | null> {
    return gates.getGate(this.ctx, eid, gateId);
  }

  listGates(eid: string): Promise<GateRecord[]> {
    return gates.listGates(this.ctx, eid);
  }

  listTicketTypes(eid: string): Promise<TicketTypeRules[]> {
    return gates.listTicketTypes(this.ctx, eid);
  }

  putTicketType(type: TicketTypeRecord): Promise<void> {
    return ticketTypes.putTicketType(this.ctx, type);
  }

  deleteTicketType(eid: string, typeKey: string): Promise<boolean> {
    return ticketTypes.deleteTicketType(this.ctx, eid, typeKey);
  }

  listTicketLabels(eid: string): Promise<string[]> {
    return ticketTypes.listTicketLabels(this.ctx, eid);
  }

  deleteGate(eid: string, gateId: string): Promise<boolean> {
    return gates.deleteGate(this.ctx, eid, gateId);
  }

  countTickets(eid: string): Promise<EventCounters> {
    return countTickets(this.ctx, eid);
  }

  createTickets(tickets: TicketRecord[]): Promise<TicketRecord[]> {
    return createTickets(this.ctx, tickets);
  }

  getTicket(tid: string): Promise<TicketRecord | null> {
    return getTicket(this.ctx, tid);
  }

  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return listTickets(this.ctx, eid, limit, after);
  }

  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return searchTickets(this.ctx, eid, query, limit, after);
  }

  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]> {
    return findHolders(this.ctx, eid, query, limit);
  }

  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return revokeTicket(this.ctx, tid, at, reason);
  }

  reissueTicket(tid: string, prev: string, next: string, jti: string | null, at: string): Promise<ReissueResult> {
    return reissueTicket(this.ctx, tid, prev, next, jti, at);
  }

  updateTicketNotes(tid: string, change: TicketNotesChange, at: string): Promise<TicketRecord | null> {
    return updateTicketNotes(this.ctx, tid, change, at);
  }

  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    return listChanges(this.ctx, eid, after, limit);
  }

  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return listConflicts(this.ctx, eid, limit, after);
  }

  createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    return createEnrollmentToken(this.ctx, t);
  }

  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]> {
    return listEnrollmentTokens(this.ctx, eid);
  }

  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return revokeEnrollmentToken(this.ctx, tokenId, at);
  }

  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult> {
    return redeemEnrollmentToken(this.ctx, tokenHash, at, key, nameScanner, onlyEvent);
  }

  findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return findApiKey(this.ctx, keyHash);
  }

  touchApiKey(apiKeyId: string, at: string): Promise<void> {
    return touchApiKey(this.ctx, apiKeyId, at);
  }

  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return revokeApiKey(this.ctx, apiKeyId, at);
  }

  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    return listApiKeys(this.ctx, eid, limit, after);
  }

  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return findApiKeyByToken(this.ctx, tokenId);
  }

  /** Check-ins arriving together share one commit (see GroupCommit); each is still atomic on its own. */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult> {
    return this.groupCommit.run(() => checkIn(this.ctx, attempt, decide));
  }

  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    return logRefusedAttempt(this.ctx, attempt, reason);
  }

  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.groupCommit.run(() => withPresence(this.ctx, attempt, decide));
  }

  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.groupCommit.run(() => withPresence(this.ctx, attempt, decide));
  }

  getPresence(tid: string): Promise<Presence | null> {
    return getPresence(this.ctx, tid);
  }

  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult> {
    return annul.annulEntry(this.ctx, attempt, judge);
  }

  getEntries(tid: string): Promise<string[]> {
    return getEntries(this.ctx, tid);
  }

  occupancy(eid: string): Promise<Occupancy> {
    return occupancy(this.ctx, eid);
  }
  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage> {
    return listRecentScans(this.ctx, eid, limit, before);
  }
  arrivals(eid: string): Promise<ArrivalCount[]> {
    return arrivals(this.ctx, eid);
  }

  listAutoExitEvents(now: string): Promise<AutoExitEvent[]> {
    return autoExit.listAutoExitEvents(this.ctx, now);
  }

  runAutoExit(run: AutoExitRun): Promise<number | null> {
    return autoExit.runAutoExit(this.ctx, run);
  }

  createWebhook(webhook: WebhookRecord): Promise<void> {
    return webhooks.createWebhook(this.ctx, webhook);
  }

  getWebhook(webhookId: string): Promise<WebhookRecord | null> {
    return webhooks.getWebhook(this.ctx, webhookId);
  }

  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>> {
    return webhooks.listWebhooks(this.ctx, limit, after);
  }

  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
    return webhooks.updateWebhook(this.ctx, webhookId, change);
  }

  deleteWebhook(webhookId: string): Promise<boolean> {
    return webhooks.deleteWebhook(this.ctx, webhookId);
  }

  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string> {
    return outbox.enqueueTo(this.ctx, webhookId, message);
  }

  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]> {
    return outbox.claim(this.ctx, request);
  }

  finishWebhookAttempts(results: AttemptResult[]): Promise<void> {
    return outbox.finish(this.ctx, results);
  }

  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>> {
    return outbox.listDeliveries(this.ctx, webhookId, limit, before);
  }

  redeliverWebhookMessage(webhookId: string, messageId: string, now: string): Promise<boolean> {
    return outbox.redeliver(this.ctx, webhookId, messageId, now);
  }

  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone> {
    return outboxUpkeep.upkeep(this.ctx, request);
  }

  countPendingWebhookMessages(): Promise<number> {
    return outbox.pendingCount(this.ctx);
  }

  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage> {
    return listScans(this.ctx, eid, limit, after);
  }

  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return addSigningKey(this.ctx, key);
  }

  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return ensureSigningKey(this.ctx, candidate);
  }

  getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    return getSigningKey(this.ctx, kid);
  }

  getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return getActiveSigningKey(this.ctx);
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    return listSigningKeys(this.ctx);
  }

  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return removeSigningKey(this.ctx, kid, at);
  }

  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return createAdminSession(this.ctx, session);
  }

  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return getAdminSession(this.ctx, sessionHash);
  }

  touchAdminSession(sessionHash: string, at: string): Promise<void> {
    return touchAdminSession(this.ctx, sessionHash, at);
  }

  deleteAdminSession(sessionHash: string): Promise<boolean> {
    return deleteAdminSession(this.ctx, sessionHash);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.checkpointer?.close();
    await this.walSync?.close();
    if (this.db.open) this.db.close();
  }
}
