import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulAttempt, AnnulResult, AnnulSeen } from './annul.ts';
import type { HolderMatch } from './holder-search.ts';
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
} from './webhook-records.ts';
import type {
  AdminSessionRecord,
  ArrivalCount,
  ApiKeyRecord,
  ChangeRecord,
  CheckInAttempt,
  CheckInDecider,
  CheckInResult,
  ConflictRecord,
  EnrollmentTokenListing,
  EnrollmentTokenRecord,
  EventCounters,
  EventRecord,
  EventSettings,
  GateRecord,
  NewApiKey,
  Occupancy,
  Page,
  Presence,
  PresenceDecider,
  RecentScanPage,
  RedeemResult,
  ReissueResult,
  ScanLogPage,
  ScannerNamer,
  SigningKeyRecord,
  TicketRecord,
  TicketTypeRecord,
} from './records.ts';
import type { AutoExitEvent, AutoExitRun } from './auto-exit.ts';
import type { AuditStore } from './audit-store.ts';
import type { PeopleStore } from './people-store.ts';
import type { SsoStore } from './sso-store.ts';
import type { OwnedResource } from './owning-event.ts';

/**
 * The storage interface. Every method is one transaction; each says what it guarantees.
 * Instants are strings in the stored form of `domain/time.ts`. The records it speaks of are in
 * `records.ts`, re-exported here.
 */
export type * from './records.ts';

export interface Store {
  /** People, their invitations, sign-in failures, personal API tokens and console sessions (people-store.ts). */
  readonly people: PeopleStore;
  /**
   * How many scans of one upload may be applied at once where each takes a transaction of its own
   * (exits, entries decided on presence): fewer than the store's connections, so that an upload never
   * takes the connections the other gates' check-ins need.
   */
  readonly uploadConcurrency: number;

  /** Reads a setting; null when absent. */
  getSetting(name: string): Promise<string | null>;
  /** Writes a setting only if absent; returns the value that holds afterwards (first writer wins). */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  /** Writes a setting, replacing any value it had. */
  putSetting(name: string, value: string): Promise<void>;
  /** Answers when the store can serve (a trivial query); throws otherwise. */
  ping(): Promise<void>;

  /** Inserts a new event. */
  createEvent(event: EventRecord): Promise<void>;
  /** The event, or null. */
  getEvent(eid: string): Promise<EventRecord | null>;
  /** Changes an event's settings; answers the event as it is now, or null when there is none. */
  updateEventSettings(eid: string, settings: EventSettings): Promise<EventRecord | null>;
  /** Declares a gate, or replaces the declaration of that gate_id. */
  putGate(gate: GateRecord): Promise<void>;
  /** A declared gate, or null. */
  getGate(eid: string, gateId: string): Promise<GateRecord | null>;
  /** The event's declared gates in gate_id order. */
  listGates(eid: string): Promise<GateRecord[]>;
  /** The event's declared ticket types and their entry rules, in label order. */
  listTicketTypes(eid: string): Promise<TicketTypeRules[]>;
  /**
   * Declares a ticket type, or replaces the declaration of its label as rules compare labels
   * (`ticketTypeKey`: `VIP` and `vip ` are one type), spelling included.
   */
  putTicketType(type: TicketTypeRecord): Promise<void>;
  /** Removes the declaration of the type with this key (`ticketTypeKey`); false when none was declared. */
  deleteTicketType(eid: string, typeKey: string): Promise<boolean>;
  /** Every distinct `ticket_type` on the event's tickets, as spelled on them, revoked tickets included. */
  listTicketLabels(eid: string): Promise<string[]>;
  /** Removes a gate's declaration; false when it was not declared. */
  deleteGate(eid: string, gateId: string): Promise<boolean>;
  /**
   * Events in eid order (ids are time-ordered to the millisecond), a page at a time (cursor: the last eid
   * seen); with `only`, just those of its eids that exist (a person's own events).
   */
  listEvents(limit: number, after: string | null, only?: readonly string[] | null): Promise<Page<EventRecord>>;
  /** The eid of the event a ticket, an enrolment token or a scanner's API key belongs to; null when unknown. */
  eventOf(resource: OwnedResource, id: string): Promise<string | null>;
  /** The event's counters: issued, checked in, revoked, in conflict; kept with each change, read in one row. */
  countTickets(eid: string): Promise<EventCounters>;

  /**
   * Inserts the tickets, all or none, except those whose `external_id` their event already holds:
   * answers the event's existing tickets of those instead (none are created again). Concurrent calls
   * with one external_id create its ticket once; a tid that exists already fails the whole call.
   */
  createTickets(tickets: TicketRecord[]): Promise<TicketRecord[]>;
  /** The ticket, or null. */
  getTicket(tid: string): Promise<TicketRecord | null>;
  /** The event's tickets in tid order (time-ordered to the millisecond), a page at a time (cursor: the last tid seen). */
  listTickets(eid: string, limit: number, after: string | null): Promise<Page<TicketRecord>>;
  /**
   * The event's tickets whose holder name contains `query` ignoring case, accents and punctuation
   * (both compared by their `searchKey`), or whose tid starts with it, in tid order, a page at a time
   * (cursor: the last tid seen). LIKE wildcards are literal.
   */
  searchTickets(eid: string, query: string, limit: number, after: string | null): Promise<Page<TicketRecord>>;
  /**
   * Finding a holder at the gate: at most `limit` of the event's tickets whose holder name contains
   * `query` ignoring case, accents and punctuation (both compared by their `searchKey`), best matches
   * first (see FIND_HOLDERS_SQL), each with whether its holder is inside. LIKE wildcards are literal.
   */
  findHolders(eid: string, query: string, limit: number): Promise<HolderMatch[]>;
  /**
   * Revokes the ticket once (a second call keeps the first time and reason); null if unknown.
   * The first revocation appends a `revoked` change to the event's feed.
   */
  revokeTicket(tid: string, at: string, reason: string | null): Promise<TicketRecord | null>;
  /**
   * Replaces the ticket's token if it is still `previousToken` and the ticket is neither revoked nor
   * used, and appends a `token_superseded` change naming `supersededJti`; otherwise refuses.
   */
  reissueTicket(
    tid: string,
    previousToken: string,
    nextToken: string,
    supersededJti: string | null,
    at: string,
  ): Promise<ReissueResult>;
  /**
   * Changes the ticket's gate notes (absent fields stay) and, when they differ from what it held,
   * appends a `ticket_notes` change carrying the new values, in one transaction; null if unknown.
   * Concurrent changes of one ticket apply one after the other: the feed's last one holds its notes.
   */
  updateTicketNotes(
    tid: string,
    change: Partial<Pick<TicketRecord, 'attention' | 'checkin_text'>>,
    at: string,
  ): Promise<TicketRecord | null>;

  /**
   * The event's changes after `after` (a position; 0 for the start), in position order. A position
   * is taken under a per-event lock inside the transaction that makes the change, so positions
   * become visible in order: a reader following its last position never skips one.
   */
  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }>;
  /**
   * The event's offline double entries, in the order of their valid check-ins (cursor: that scan's
   * scan_id): tickets with an `already_used` scan from another scanner than the valid check-in's that
   * was admitted offline, or that said nothing of an offline verdict and was scanned before the valid
   * check-in was received. A scan turned away offline (`admitted_offline: false`) is never one.
   */
  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>>;

  /** Inserts a new enrolment token (its hash only). */
  createEnrollmentToken(token: EnrollmentTokenRecord): Promise<void>;
  /** The event's enrolment tokens, newest first, each with the scanner that used it (if any). */
  listEnrollmentTokens(eid: string): Promise<EnrollmentTokenListing[]>;
  /** Revokes an unused token (used or revoked ones are left as they are); null if unknown. */
  revokeEnrollmentToken(tokenId: string, at: string): Promise<EnrollmentTokenRecord | null>;
  /**
   * Exchanges a token for an API key: marks the token used and inserts the key, or refuses.
   * Concurrent calls with one token see exactly one `enrolled`. A key without `scanner_name` is
   * named by `nameScanner` from facts read in the same transaction; concurrent enrolments in one
   * event are named one after the other, so two never count the same scanners. With `onlyEvent`, a
   * token of another event is refused (`other_event`) and stays unused.
   */
  redeemEnrollmentToken(
    tokenHash: string,
    at: string,
    key: NewApiKey,
    nameScanner?: ScannerNamer,
    onlyEvent?: string,
  ): Promise<RedeemResult>;

  /** The API key with this hash, whatever its state, or null. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Records that the key was used at `at` (only moves last_seen_at forward). */
  touchApiKey(apiKeyId: string, at: string): Promise<void>;
  /** Revokes the key once; null if unknown. */
  revokeApiKey(apiKeyId: string, at: string): Promise<ApiKeyRecord | null>;
  /** The event's scanner records (one per API key) in api_key_id order, a page at a time (cursor: the last api_key_id seen). */
  listApiKeys(eid: string, limit: number, after: string | null): Promise<Page<ApiKeyRecord>>;
  /** The API key an enrolment token was exchanged for, or null. */
  findApiKeyByToken(tokenId: string): Promise<ApiKeyRecord | null>;

  /**
   * Applies one check-in attempt atomically. First the attempt's API key is judged as it stands
   * inside the transaction (revoked, or expired at `received_at`: `key_refused`, nothing stored), so
   * a key revoked anywhere is refused on its next check-in. A known idempotency key (per event) with the same
   * fingerprint returns its first answer; with another fingerprint, a conflict. Otherwise
   * `decide` sees the ticket as it is inside the transaction, and the declared gate the attempt names
   * (null when it names none or an undeclared one), and its verdict is applied and remembered; if `decide` throws, nothing is stored and the error reaches the caller.
   * Concurrent attempts on one ticket or one key are serialized: one winner.
   * Every attempt is appended to the scan log; a check-in appends a `checked_in` change to the feed.
   */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult>;
  /** Appends a refused attempt (outcome `refused`, with the reason) to the event's scan log; nothing else changes. */
  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void>;
  /**
   * An exit scan, with check-in's idempotency (the same key space) and scan log: `decide` sees the
   * ticket and whether its holder is inside; a verdict's move `to: 'out'` takes a holder inside out
   * (and appends a `checked_out` change) in the same transaction.
   */
  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult>;
  /**
   * An entry decided with the holder's presence known (events with re-entry), in a transaction of
   * its own like an exit; a verdict's move `from: 'out'` lets a holder who went out in again.
   */
  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult>;
  /** Whether the ticket's holder is inside (null: never came in). */
  getPresence(tid: string): Promise<Presence | null>;
  /** The `scanned_at` of the ticket's counted entries (not annulled). */
  getEntries(tid: string): Promise<string[]>;
  /**
   * Annuls an entry, if `judge` (the shared rule, on what the transaction read) lets it: the entry no
   * longer counts, the holder is back where they were, the counts move back, an `annulled` change and
   * its webhook message are appended, the scan log marks the scan (see store/annul.ts).
   */
  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult>;
  /** The event's occupancy: inside now, and entries and exits per gate, from its counter rows. */
  occupancy(eid: string): Promise<Occupancy>;
  /** The event's entries per minute of scan time and gate, in time order, from its counter rows. */
  arrivals(eid: string): Promise<ArrivalCount[]>;
  /**
   * The events with automatic exit on, each with the instant it took effect: its creation, or for one
   * switched on later, the `now` of the first call that saw it on (store/auto-exit.ts).
   */
  listAutoExitEvents(now: string): Promise<AutoExitEvent[]>;
  /**
   * Counts out, at the start of an event day, every holder of the event inside whose latest entry came
   * before it, in one transaction with the day's `auto_exits` row: presence out, a `checked_out` change
   * marked auto for each, their messages, the exits counted. Once per event and day across instances:
   * null when the day was done already (concurrent calls see one winner); else how many went out.
   */
  runAutoExit(run: AutoExitRun): Promise<number | null>;
  /**
   * The event's scan log in commit order, a page at a time, after a cursor a page gave: a pager that
   * follows `next_cursor` sees every scan once, a scan that committed late included.
   */
  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage>;
  /** The event's latest scans, newest first, a page at a time (cursor: a `next_cursor` this gave). */
  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage>;

  /** Stores a webhook endpoint and, while it is enabled, its subscriptions. */
  createWebhook(webhook: WebhookRecord): Promise<void>;
  getWebhook(webhookId: string): Promise<WebhookRecord | null>;
  /** Endpoints in webhook_id order, a page at a time. */
  listWebhooks(limit: number, after: string | null): Promise<Page<WebhookRecord>>;
  /**
   * Changes an endpoint; null when there is none. Touches the endpoint's row and subscriptions only
   * (disabling it stops new messages at once; the upkeep fails its pending ones).
   */
  updateWebhook(webhookId: string, change: WebhookChange): Promise<WebhookRecord | null>;
  /** Deletes an endpoint and its subscriptions (the upkeep deletes its messages and their attempts). */
  deleteWebhook(webhookId: string): Promise<boolean>;
  /** Writes one message for one endpoint (a test message); its message_id. */
  enqueueWebhookMessage(webhookId: string, message: OutboxMessage): Promise<string>;
  /** Takes due messages under a lease (see ClaimRequest). */
  claimWebhookMessages(request: ClaimRequest): Promise<ClaimedMessage[]>;
  /** Records the ends of attempts, in one transaction. */
  finishWebhookAttempts(results: AttemptResult[]): Promise<void>;
  /** An endpoint's messages with their attempts, newest first (cursor: the last seq seen). */
  listWebhookDeliveries(webhookId: string, limit: number, before: number | null): Promise<Page<DeliveryRecord>>;
  /**
   * Makes a message of the endpoint pending again, due now (`now` on SQLite, the database's clock on
   * PostgreSQL), even while an attempt of it is under way; false when there is no such message.
   */
  redeliverWebhookMessage(webhookId: string, messageId: string, now: string): Promise<boolean>;
  /**
   * One bounded step of the outbox's upkeep, each part a short transaction of its own: fails up to
   * `batch` pending messages of a disabled endpoint, deletes up to `batch` messages of deleted endpoints
   * and up to `batch` delivered or failed ones past the retention (with their attempts).
   */
  upkeepWebhookOutbox(request: UpkeepRequest): Promise<UpkeepDone>;
  /** How many messages wait for delivery (the gauge). */
  countPendingWebhookMessages(): Promise<number>;

  /** Inserts a signing key and retires every other active one, atomically. */
  addSigningKey(key: SigningKeyRecord): Promise<void>;
  /** Inserts the first signing key unless an active one exists; returns the active key. */
  ensureSigningKey(candidate: SigningKeyRecord): Promise<SigningKeyRecord>;
  /** The key with this kid (removed ones included), or null. */
  getSigningKey(kid: string): Promise<SigningKeyRecord | null>;
  /** The active key (the newest not retired), or null. */
  getActiveSigningKey(): Promise<SigningKeyRecord | null>;
  /** All keys, newest first. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Marks a retired key removed; refuses the active key. */
  removeSigningKey(kid: string, at: string): Promise<'removed' | 'active' | 'unknown'>;

  /** Inserts a console session; sessions whose absolute end has passed by its creation are deleted. */
  createAdminSession(session: AdminSessionRecord): Promise<void>;
  /** The session with this hash, or null. */
  getAdminSession(sessionHash: string): Promise<AdminSessionRecord | null>;
  /** Records that the session was used at `at` (only moves last_seen_at forward). */
  touchAdminSession(sessionHash: string, at: string): Promise<void>;
  /** Deletes the session; false when there was none. */
  deleteAdminSession(sessionHash: string): Promise<boolean>;

  /** Single sign-on attempts between the redirect to the provider and its answer. */
  readonly sso: SsoStore;

  /** The audit trail: append-only; an admin write's entry is written by the transaction of its change. */
  readonly audit: AuditStore;

  /** Releases connections and files. */
  close(): Promise<void>;
}
