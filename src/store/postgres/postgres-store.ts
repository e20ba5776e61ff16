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
import type pg from 'pg';
import type {
  EventSettings,
  GateRecord,
  Occupancy,
  Presence,
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
} from '../store.ts';
import { auditedPool, transaction } from './transaction.ts';
import { postgresAudit } from './audit.ts';
import type { AuditStore } from '../audit-store.ts';
import { CheckInBatcher } from './check-in-batch.ts';
import * as autoExit from './auto-exit.ts';
import type { AutoExitEvent, AutoExitRun } from '../auto-exit.ts';
import * as checkIns from './check-ins.ts';
import * as counters from './counters.ts';
import * as scanLog from './scan-log.ts';
import * as events from './events.ts';
import * as feed from './feed.ts';
import * as gates from './gates.ts';
import * as ticketTypes from './ticket-types.ts';
import { migrate } from './migrations.ts';
import { boundedPool, DEFAULT_POOL_TIMEOUTS, type PoolTimeouts, migrationPool } from './pool.ts';
import { numbered, one, type Tx } from './queries.ts';
import { OWNING_EVENT_SQL, type OwnedResource } from '../owning-event.ts';
import * as scanners from './scanners.ts';
import * as sessions from './sessions.ts';
import { PostgresPeopleStore } from './people.ts';
import type { PeopleStore } from '../people-store.ts';
import { postgresSso } from './sso.ts';
import type { SsoStore } from '../sso-store.ts';
import * as settings from './settings.ts';
import * as signingKeys from './signing-keys.ts';
import * as tickets from './tickets.ts';
import * as ticketNotes from './ticket-notes.ts';
import type { TicketNotesChange } from '../ticket-notes.ts';
import type { HolderMatch } from '../holder-search.ts';

/**
 * The shared store: PostgreSQL, for several issuer instances behaving as one. Every method is one
 * transaction: a single statement runs on the pool (PostgreSQL makes it atomic and gives it one
 * snapshot), several run between BEGIN and COMMIT on one client. Races between processes are
 * settled by row locks and transaction-scoped advisory locks, never by the process.
 * Each concern's queries live in a file of their own (settings.ts, tickets.ts, feed.ts, ...).
 */
export class PostgresStore implements Store {
  private readonly batcher: CheckInBatcher;
  readonly audit: AuditStore;
  readonly people: PeopleStore;
  /**
   * Check-ins and exits join the check-in batches (at most two transactions at once whatever the number
   * waiting): an upload may hand them all over at once.
   */
  readonly uploadConcurrency = Number.POSITIVE_INFINITY;
  readonly sso: SsoStore;

  private constructor(private readonly pool: pg.Pool) {
    this.batcher = new CheckInBatcher(pool, (attempt, decide) => checkIns.withPresence(this.tx, attempt, decide));
    this.audit = postgresAudit(pool, this.tx);
    this.people = new PostgresPeopleStore(pool, (work) => this.tx(work));
    this.sso = postgresSso(pool, this.tx);
  }

  /** Connects and applies pending migrations; instances starting together migrate once. */
  static async open(url: string, timeouts: PoolTimeouts = DEFAULT_POOL_TIMEOUTS): Promise<PostgresStore> {
    const migrations = await migrationPool(url, timeouts);
    try {
      await migrate(migrations);
    } finally {
      await migrations.end();
    }
    return new PostgresStore(auditedPool(await boundedPool(url, timeouts)));
  }

  /** Runs `work` between BEGIN and COMMIT on one client; rolls back (or drops a broken client) on failure. */
  private readonly tx: Tx = (work) => transaction(this.pool, work);

  getSetting(name: string): Promise<string | null> {
    return settings.getSetting(this.pool, name);
  }
  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return settings.putSettingIfAbsent(this.tx, name, value);
  }
  putSetting(name: string, value: string): Promise<void> {
    return settings.putSetting(this.pool, name, value);
  }
  ping(): Promise<void> {
    return settings.ping(this.pool);
  }

  createEvent(e: EventRecord): Promise<void> {
    return events.createEvent(this.pool, e);
  }
  getEvent(eid: string): Promise<EventRecord | null> {
    return events.getEvent(this.pool, eid);
  }
  listEvents(limit: number, after: string | null, only: readonly string[] | null = null): Promise<Page<EventRecord>> {
    return events.listEvents(this.pool, limit, after, only);
  }

  async eventOf(resource: OwnedResource, id: string): Promise<string | null> {
    return (await one<{ eid: string }>(this.pool, numbered(OWNING_EVENT_SQL[resource]), [id]))?.eid ?? null;
  }

  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null> {
    return events.updateEventSettings(this.pool, eid, settings);
  }

  putGate(gate: GateRecord): Promise<void> {
    return gates.putGate(this.pool, gate);
  }

  getGate(eid: string, gateId: string): Promise<GateRecord | null> {
    return gates.getGate(this.pool, eid, gateId);
  }

  listGates(eid: string): Promise<GateRecord[]> {
    return gates.listGates(this.pool, eid);
  }

  listTicketTypes(eid: string): Promise<TicketTypeRules[]> {
    return gates.listTicketTypes(this.pool, eid);
  }

  putTicketType(type: TicketTypeRecord): Promise<void> {
    return ticketTypes.putTicketType(this.pool, type);
  }

  deleteTicketType(eid: string, typeKey: string): Promise<boolean> {
    return ticketTypes.deleteTicketType(this.pool, eid, typeKey);
  }

  listTicketLabels(eid: string): Promise<string[]> {
    return ticketTypes.listTicketLabels(this.pool, eid);
  }

  deleteGate(eid: string, gateId: string): Promise<boolean> {
    return gates.deleteGate(this.pool, eid, gateId);
  }
  countTickets(eid: string): Promise<EventCounters> {
    return counters.countTickets(this.pool, eid);
  }

  createTickets(list: TicketRecord[]): Promise<TicketRecord[]> {
    return tickets.createTickets(this.tx, list);
  }
  getTicket(tid: string): Promise<TicketRecord | null> {
    return tickets.getTicket(this.pool, tid);
  }
  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return tickets.listTickets(this.pool, eid, limit, after);
  }
  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>> {
    return tickets.searchTickets(this.pool, eid, query, limit, after);
  }
  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]> {
    return tickets.findHolders(this.pool, eid, query, limit);
  }
  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
    return tickets.revokeTicket(this.tx, tid, at, reason);
  }
  reissueTicket(tid: string, previous: string, next: string, jti: string | null, at: string): Promise<ReissueResult> {
    return tickets.reissueTicket(this.tx, tid, previous, next, jti, at);
  }
  updateTicketNotes(tid: string, change: TicketNotesChange, at: string): Promise<TicketRecord | null> {
    return ticketNotes.updateTicketNotes(this.tx, tid, change, at);
  }

  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    return feed.listChanges(this.pool, eid, after, limit);
  }
  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return feed.listConflicts(this.pool, eid, limit, after);
  }

  createEnrollmentToken(t: EnrollmentTokenRecord): Promise<void> {
    return scanners.createEnrollmentToken(this.pool, t);
  }
  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]> {
    return scanners.listEnrollmentTokens(this.pool, eid);
  }
  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null> {
    return scanners.revokeEnrollmentToken(this.tx, tokenId, at);
  }
  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult> {
    return scanners.redeemEnrollmentToken(this.tx, tokenHash, at, key, nameScanner, onlyEvent);
  }
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return scanners.findApiKey(this.pool, keyHash);
  }
  touchApiKey(apiKeyId: string, at: string): Promise<void> {
    return scanners.touchApiKey(this.pool, apiKeyId, at);
  }
  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null> {
    return scanners.revokeApiKey(this.tx, apiKeyId, at);
  }
  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>> {
    return scanners.listApiKeys(this.pool, eid, limit, after);
  }
  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null> {
    return scanners.findApiKeyByToken(this.pool, tokenId);
  }

  /**
   * Applies one check-in attempt atomically; same-key attempts and same-ticket attempts are
   * serialized across processes, and every attempt is appended to the scan log. Attempts arriving
   * together share one transaction (see CheckInBatcher); each is still decided on its own.
   */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult> {
    return this.batcher.run(attempt, (ticket, _presence, gate, entries) => decide(ticket, gate, entries));
  }

  /** How many check-in batches were committed (for tests and benchmarks). */
  get committedBatches(): number {
    return this.batcher.committedBatches;
  }

  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    return checkIns.logRefusedAttempt(this.pool, attempt, reason);
  }

  /** An exit, in the check-in batches as every check-in (see CheckInBatcher). */
  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.batcher.run(attempt, decide);
  }

  /** An entry decided on the holder's presence, in the check-in batches as every check-in. */
  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.batcher.run(attempt, decide);
  }

  getPresence(tid: string): Promise<Presence | null> {
    return checkIns.getPresence(this.pool, tid);
  }

  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult> {
    return annul.annulEntry(this.tx, attempt, judge);
  }

  getEntries(tid: string): Promise<string[]> {
    return checkIns.getEntries(this.pool, tid);
  }

  occupancy(eid: string): Promise<Occupancy> {
    return checkIns.occupancy(this.pool, eid);
  }
  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage> {
    return scanLog.listRecentScans(this.pool, eid, limit, before);
  }
  arrivals(eid: string): Promise<ArrivalCount[]> {
    return counters.arrivals(this.pool, eid);
  }
  listAutoExitEvents(now: string): Promise<AutoExitEvent[]> {
    return autoExit.listAutoExitEvents(this.pool, now);
  }
  runAutoExit(run: AutoExitRun): Promise<number | null> {
    return autoExit.runAutoExit(this.tx, run);
  }

  createWebhook(webhook: WebhookRecord): Promise<void> {
    return webhooks.createWebhook(this.tx, webhook);
  }

  getWebhook(webhookId: string): Promise<WebhookRecord | null> {
    return webhooks.getWebhook(this.pool, webhookId);
  }

  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>> {
    return webhooks.listWebhooks(this.pool, limit, after);
  }

  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null> {
    return webhooks.updateWebhook(this.tx, webhookId, change);
  }

  deleteWebhook(webhookId: string): Promise<boolean> {
    return webhooks.deleteWebhook(this.tx, webhookId);
  }

  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string> {
    return outbox.enqueueTo(this.pool, webhookId, message);
  }

  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]> {
    return outbox.claim(this.pool, request);
  }

  finishWebhookAttempts(results: AttemptResult[]): Promise<void> {
    return outbox.finish(this.tx, results);
  }

  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>> {
    return outbox.listDeliveries(this.tx, webhookId, limit, before);
  }

  redeliverWebhookMessage(webhookId: string, messageId: string): Promise<boolean> {
    return outbox.redeliver(this.pool, webhookId, messageId);
  }

  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone> {
    return outboxUpkeep.upkeep(this.tx, request);
  }

  countPendingWebhookMessages(): Promise<number> {
    return outbox.pendingCount(this.pool);
  }
  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage> {
    return checkIns.listScans(this.pool, eid, limit, after);
  }

  addSigningKey(key: SigningKeyRecord): Promise<void> {
    return signingKeys.addSigningKey(this.tx, key);
  }
  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord> {
    return signingKeys.ensureSigningKey(this.tx, candidate);
  }
  getSigningKey(kid: string): Promise<SigningKeyRecord | null> {
    return signingKeys.getSigningKey(this.pool, kid);
  }
  getActiveSigningKey(): Promise<SigningKeyRecord | null> {
    return signingKeys.activeSigningKey(this.pool);
  }
  listSigningKeys(): Promise<SigningKeyRecord[]> {
    return signingKeys.listSigningKeys(this.pool);
  }
  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'> {
    return signingKeys.removeSigningKey(this.tx, kid, at);
  }

  createAdminSession(session: AdminSessionRecord): Promise<void> {
    return sessions.createAdminSession(this.tx, session);
  }
  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null> {
    return sessions.getAdminSession(this.pool, sessionHash);
  }
  touchAdminSession(sessionHash: string, at: string): Promise<void> {
    return sessions.touchAdminSession(this.pool, sessionHash, at);
  }
  deleteAdminSession(sessionHash: string): Promise<boolean> {
    return sessions.deleteAdminSession(this.pool, sessionHash);
  }

  /** Releases every pooled connection. */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
