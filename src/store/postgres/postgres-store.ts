import { PostgresSettingStore } from './setting-store.ts';
import { PostgresWalletPushStore } from './wallet-pushes.ts';
import { PostgresEventStore } from './event-store.ts';
import { PostgresTicketStore } from './ticket-store.ts';
import { PostgresRosterStore } from './roster.ts';
import { PostgresFeedStore } from './feed-store.ts';
import { PostgresScannerStore } from './scanner-store.ts';
import { PostgresCheckInStore } from './check-in-store.ts';
import { PostgresReportStore } from './report-store.ts';
import { PostgresWebhookStore } from './webhook-store.ts';
import { PostgresDeliveryStore } from './delivery-store.ts';
import { PostgresSigningKeyStore } from './signing-key-store.ts';
import { PostgresSessionStore } from './session-store.ts';
import { PostgresApplePassStore } from './apple-passes.ts';
import type { Store } from '../store.ts';
import { auditedPool, transaction } from './transaction.ts';
import { postgresAudit } from './audit.ts';
import type { AuditStore } from '../audit-store.ts';
import { CheckInBatcher } from './check-in-batch.ts';
import { migrate } from './migrations.ts';
import { boundedPool, DEFAULT_POOL_TIMEOUTS, type PoolTimeouts, migrationPool } from './pool.ts';
import type { Tx } from './queries.ts';
import { PostgresPeopleStore } from './people.ts';
import type { PeopleStore } from '../people-store.ts';
import { postgresSso } from './sso.ts';
import type { SsoStore } from '../sso-store.ts';
import * as checkIns from './check-ins.ts';
import * as settings from './settings.ts';
import type pg from 'pg';

/** How many check-in batches may be in flight at once (each on a connection of its own). */
const BATCHES_IN_FLIGHT = 2;

/**
 * The shared store: PostgreSQL, for several issuer instances behaving as one. Every method is one
 * transaction: a single statement runs on the pool (PostgreSQL makes it atomic and gives it one
 * snapshot), several run between BEGIN and COMMIT on one client. Races between processes are
 * settled by row locks and transaction-scoped advisory locks, never by the process.
 * Each concern's queries live in a file of their own (settings.ts, tickets.ts, feed.ts, ...).
 */
export class PostgresStore implements Store {
  readonly settings: PostgresSettingStore;
  readonly events: PostgresEventStore;
  readonly tickets: PostgresTicketStore;
  readonly roster: PostgresRosterStore;
  readonly feed: PostgresFeedStore;
  readonly scanners: PostgresScannerStore;
  readonly checkIns: PostgresCheckInStore;
  readonly reports: PostgresReportStore;
  readonly webhooks: PostgresWebhookStore;
  readonly deliveries: PostgresDeliveryStore;
  readonly signingKeys: PostgresSigningKeyStore;
  readonly sessions: PostgresSessionStore;
  readonly applePasses: PostgresApplePassStore;
  readonly walletPushes: PostgresWalletPushStore;
  private readonly batcher: CheckInBatcher;
  readonly audit: AuditStore;
  readonly people: PeopleStore;
  readonly sso: SsoStore;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly batchPool: pg.Pool,
  ) {
    this.batcher = new CheckInBatcher(
      batchPool,
      (attempt, decide) => checkIns.withPresence(this.tx, attempt, decide),
      BATCHES_IN_FLIGHT,
    );
    this.audit = postgresAudit(pool, this.tx);
    this.people = new PostgresPeopleStore(pool, (work) => this.tx(work));
    this.sso = postgresSso(pool, this.tx);
    const own = { pool, tx: this.tx, batcher: this.batcher };
    this.settings = new PostgresSettingStore(own);
    this.events = new PostgresEventStore(own);
    this.tickets = new PostgresTicketStore(own);
    this.roster = new PostgresRosterStore(own);
    this.feed = new PostgresFeedStore(own);
    this.scanners = new PostgresScannerStore(own);
    this.checkIns = new PostgresCheckInStore(own);
    this.reports = new PostgresReportStore(own);
    this.webhooks = new PostgresWebhookStore(own);
    this.deliveries = new PostgresDeliveryStore(own);
    this.signingKeys = new PostgresSigningKeyStore(own);
    this.sessions = new PostgresSessionStore(own);
    this.applePasses = new PostgresApplePassStore(own);
    this.walletPushes = new PostgresWalletPushStore(own);
  }

  /** Connects and applies pending migrations; instances starting together migrate once. */
  static async open(url: string, timeouts: PoolTimeouts = DEFAULT_POOL_TIMEOUTS): Promise<PostgresStore> {
    const migrations = await migrationPool(url, timeouts);
    try {
      await migrate(migrations);
    } finally {
      await migrations.end();
    }
    // The check-in batches have connections of their own, pipelined (see CheckInBatcher): one each.
    const batchPool = await boundedPool(url, timeouts, { max: BATCHES_IN_FLIGHT, pipeline: true });
    return new PostgresStore(auditedPool(await boundedPool(url, timeouts)), batchPool);
  }

  /** Runs `work` between BEGIN and COMMIT on one client; rolls back (or drops a broken client) on failure. */
  private readonly tx: Tx = (work) => transaction(this.pool, work);

  ping(): Promise<void> {
    return settings.ping(this.pool);
  }

  /** How many check-in batches were committed (for tests and benchmarks). */
  get committedBatches(): number {
    return this.batcher.committedBatches;
  }

  /** Releases every pooled connection. */
  async close(): Promise<void> {
    if (!this.batchPool.ended) await this.batchPool.end();
    if (!this.pool.ended) await this.pool.end();
  }
}
