import { SqliteSettingStore } from './setting-store.ts';
import { SqliteEventStore } from './event-store.ts';
import { SqliteTicketStore } from './ticket-store.ts';
import { SqliteRosterStore } from './roster.ts';
import { SqliteFeedStore } from './feed-store.ts';
import { SqliteScannerStore } from './scanner-store.ts';
import { SqliteCheckInStore } from './check-in-store.ts';
import { SqliteReportStore } from './report-store.ts';
import { SqliteWebhookStore } from './webhook-store.ts';
import { SqliteDeliveryStore } from './delivery-store.ts';
import { SqliteSigningKeyStore } from './signing-key-store.ts';
import { SqliteSessionStore } from './session-store.ts';
import { SqliteApplePassStore } from './apple-passes.ts';
import { SqliteWalletPushStore } from './wallet-pushes.ts';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Store } from '../store.ts';
import { Checkpointer, type CheckpointerOptions } from './checkpointer.ts';
import { SqliteContext } from './context.ts';
import { GroupCommit } from './group-commit.ts';
import { migrate } from './migrations.ts';
import { SqlitePeopleStore } from './people.ts';
import type { PeopleStore } from '../people-store.ts';
import { ping } from './settings.ts';
import { WalSync } from './wal-sync.ts';
import { sqliteAudit } from './audit.ts';
import type { AuditStore } from '../audit-store.ts';
import { sqliteSso } from './sso.ts';
import type { SsoStore } from '../sso-store.ts';
import { searchKey, searchWords } from '../search-key.ts';
import Database from 'better-sqlite3';

/** The WAL's size from which a worker checkpoints it (the migrations' pages are checkpointed at start). */
const CHECKPOINT_FROM_BYTES = 1024 * 1024;

/**
 * The embedded store: one SQLite file in WAL mode. Node runs one transaction at a time, so
 * every method is serialized; each commit is durable (fsync of the WAL, see WalSync) before the answer.
 */
export class SqliteStore implements Store {
  readonly settings: SqliteSettingStore;
  readonly events: SqliteEventStore;
  readonly tickets: SqliteTicketStore;
  readonly roster: SqliteRosterStore;
  readonly feed: SqliteFeedStore;
  readonly scanners: SqliteScannerStore;
  readonly checkIns: SqliteCheckInStore;
  readonly reports: SqliteReportStore;
  readonly webhooks: SqliteWebhookStore;
  readonly deliveries: SqliteDeliveryStore;
  readonly signingKeys: SqliteSigningKeyStore;
  readonly sessions: SqliteSessionStore;
  readonly applePasses: SqliteApplePassStore;
  readonly walletPushes: SqliteWalletPushStore;
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

  constructor(
    path: string,
    /** The checkpointer's pace and sizes, for tests (see CheckpointerOptions). */
    private readonly options: { checkpoints?: Omit<CheckpointerOptions, 'onRestartWanted'> } = {},
  ) {
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
    // When a group commit runs again with each check-in in a savepoint (see GroupCommit), SQLite copies
    // every page a savepoint first changes into a sub-journal, a temporary file once it passes 64 KiB:
    // a group wrote each check-in's pages (about nine) to it, two writes a page, a third of the store's
    // time. In memory, the copies cost a few microseconds; so do a statement's own, should it fail.
    // Nothing else here needs temporary storage of any size: lists are read in index order, and the
    // conflicts report sorts one page's duplicates and counts the conflicting tickets. The migrations
    // above run before, with SQLite's default.
    this.db.pragma('temp_store = MEMORY');
    this.groupCommit = new GroupCommit(this.db, () => this.ctx.durable(), this.ctx.grouped);
    const own = { ctx: this.ctx, groupCommit: this.groupCommit };
    this.settings = new SqliteSettingStore(own);
    this.events = new SqliteEventStore(own);
    this.tickets = new SqliteTicketStore(own);
    this.roster = new SqliteRosterStore(own);
    this.feed = new SqliteFeedStore(own);
    this.scanners = new SqliteScannerStore(own);
    this.checkIns = new SqliteCheckInStore(own);
    this.reports = new SqliteReportStore(own);
    this.webhooks = new SqliteWebhookStore(own);
    this.deliveries = new SqliteDeliveryStore(own);
    this.signingKeys = new SqliteSigningKeyStore(own);
    this.sessions = new SqliteSessionStore(own);
    this.applePasses = new SqliteApplePassStore(own);
    this.walletPushes = new SqliteWalletPushStore(own);
    if (this.walSync) this.db.pragma('wal_autocheckpoint = 0');
  }

  /** Starts checkpointing from a worker thread (once; never while closing). */
  private startCheckpointer(path: string): void {
    if (this.closing || this.checkpointer !== null) return;
    this.checkpointer = new Checkpointer(resolve(path), () => this.db.pragma('wal_autocheckpoint = 1000'), {
      ...this.options.checkpoints,
      // The worker's last pass before the WAL restarts runs while no group commits (see checkpointer.ts).
      onRestartWanted: () => this.groupCommit.hold(() => this.checkpointer?.drain() ?? Promise.resolve()),
    });
  }

  /** How many fsyncs made commits durable (null when SQLite syncs by itself): for tests and benchmarks. */
  get walSyncs(): number | null {
    return this.walSync?.syncs ?? null;
  }

  ping(): Promise<void> {
    return ping(this.ctx);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.checkpointer?.close();
    await this.walSync?.close();
    if (this.db.open) this.db.close();
  }
}
