import type { AuditStore } from './audit-store.ts';
import type { PeopleStore } from './people-store.ts';
import type { SsoStore } from './sso-store.ts';
import type { SettingStore } from './setting-store.ts';
import type { EventStore } from './event-store.ts';
import type { TicketStore } from './ticket-store.ts';
import type { FeedStore } from './feed-store.ts';
import type { ScannerStore } from './scanner-store.ts';
import type { CheckInStore } from './check-in-store.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { DeliveryStore } from './delivery-store.ts';
import type { SigningKeyStore } from './signing-key-store.ts';
import type { SessionStore } from './session-store.ts';
import type { ApplePassStore } from './apple-pass-store.ts';
import type { WalletPushStore } from './wallet-push-records.ts';
import type { RosterStore } from './roster-store.ts';

/**
 * The storage interface. Every method is one transaction; each says what it guarantees.
 * Instants are strings in the stored form of `domain/time.ts`. The records it speaks of are in
 * `records.ts` and the `*-records.ts` files beside it, re-exported here.
 */
export type * from './records.ts';
export type * from './event-records.ts';
export type * from './ticket-records.ts';
export type * from './scanner-records.ts';
export type * from './check-in-records.ts';
export type * from './scan-log-records.ts';
export type * from './feed-records.ts';
export type * from './apple-pass-store.ts';
export type * from './wallet-push-records.ts';
export type * from './delivery-records.ts';
export type * from './roster-store.ts';

export interface Store {
  /** The issuer's own settings (identity, admin token hash): one row each. (setting-store.ts) */
  readonly settings: SettingStore;
  /** Events, their gates and ticket types, and their kept counters. (event-store.ts) */
  readonly events: EventStore;
  /** Tickets: issuing, reading, finding, revoking, reissuing, their gate notes. (ticket-store.ts) */
  readonly tickets: TicketStore;
  /** The roster offline devices sync, tickets by short code, and the tickets of one order. (roster-store.ts) */
  readonly roster: RosterStore;
  /** The changes feed offline scanners sync, and the conflicts report. (feed-store.ts) */
  readonly feed: FeedStore;
  /** Enrolment tokens and the scanners' API keys. (scanner-store.ts) */
  readonly scanners: ScannerStore;
  /** Check-ins, exits and undos, presence and occupancy, the automatic exit and the scan log. (check-in-store.ts) */
  readonly checkIns: CheckInStore;
  /** Webhook endpoints and their outbox. (webhook-store.ts) */
  readonly webhooks: WebhookStore;
  /** The mail outbox: tickets' emails, queued until sent or failed. (delivery-store.ts) */
  readonly deliveries: DeliveryStore;
  /** The issuer's signing keys (private halves sealed). (signing-key-store.ts) */
  readonly signingKeys: SigningKeyStore;
  /** Console sessions. (session-store.ts) */
  readonly sessions: SessionStore;
  /** Apple Wallet: devices registered for passes, pass changes, the push outbox. (apple-pass-store.ts) */
  readonly applePasses: ApplePassStore;

  /** People, their invitations, sign-in failures, personal API tokens and console sessions (people-store.ts). */
  readonly people: PeopleStore;
  /** Answers when the store can serve (a trivial query); throws otherwise. */
  ping(): Promise<void>;
  /** Single sign-on attempts between the redirect to the provider and its answer. */
  readonly sso: SsoStore;
  /** The wallet outbox: pushes that keep saved passes in step with revocations and reissues. (wallet-push-records.ts) */
  readonly walletPushes: WalletPushStore;
  /** The audit trail: append-only; an admin write's entry is written by the transaction of its change. */
  readonly audit: AuditStore;
  /** Releases connections and files. */
  close(): Promise<void>;
}
