import type Database from 'better-sqlite3';
import { pendingAudit, type PendingAudit } from '../audit-context.ts';
import { insertPendingAudit } from './audit.ts';
import type { WalSync } from './wal-sync.ts';
import { GroupCounts } from './group-counts.ts';
import { Subscribers } from './subscribers.ts';
import { GroupPositions } from './group-positions.ts';
import { groupMembers } from './group-commit.ts';

/**
 * What every concern file of the SQLite store works with: the connection, its prepared statements,
 * and the transaction helpers. The store owns it; each Store method hands it to one function.
 */
export class SqliteContext {
  private readonly statements = new Map<string, Database.Statement>();
  /** The kept counts (event, gate, arrivals): moves added up per group commit (see GroupCounts). */
  readonly counts = new GroupCounts((sql, values) => {
    this.run(sql, ...values);
  });
  /** The feed's positions: handed out in memory per group commit (see GroupPositions). */
  readonly positions = new GroupPositions({
    last: (sql, eid) => this.one<{ last_position: number }>(sql, eid)?.last_position ?? null,
    write: (sql, values) => {
      this.run(sql, ...values);
    },
  });
  /** What a group commit tells of its units: the kept counts and the feed's positions. */
  readonly grouped = groupMembers(this.counts, this.positions);
  /** Which webhook subscriptions exist, kept in memory (see Subscribers). */
  readonly subscribers = new Subscribers();

  constructor(
    readonly db: Database.Database,
    /** Makes commits durable off the event loop; null where SQLite syncs as it commits. */
    readonly walSync: WalSync | null,
  ) {}

  /** Prepared once per SQL text: preparing is most of the cost of a small query. */
  statement(sql: string): Database.Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  // Each runs its statement as it is, unless it is a write outside any transaction while an admin
  // write's entry is pending (see `alone`): no closure is made for the common case, a check-in's
  // statements inside its group's transaction.

  one<T>(sql: string, ...params: unknown[]): T | null {
    const statement = this.statement(sql);
    if (this.plain(statement)) return (statement.get(...params) as T | undefined) ?? null;
    return this.alone(() => (statement.get(...params) as T | undefined) ?? null);
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    const statement = this.statement(sql);
    if (this.plain(statement)) return statement.all(...params) as T[];
    return this.alone(() => statement.all(...params) as T[]);
  }

  run(sql: string, ...params: unknown[]): number {
    const statement = this.statement(sql);
    if (this.plain(statement)) return statement.run(...params).changes;
    return this.alone(() => statement.run(...params).changes);
  }

  /**
   * One IMMEDIATE transaction; resolves once it is durable. While an admin write's audit entry is
   * pending (see `audit-context.ts`), the transaction inserts it if it changed rows.
   */
  async tx<T>(fn: () => T): Promise<T> {
    // A transaction inside another one is a savepoint of it: the outer one records.
    const pending = this.db.inTransaction ? null : pendingAudit();
    const result = this.db.transaction(pending ? this.recording(pending, fn) : fn).immediate();
    await this.durable();
    return result;
  }

  /** Whether a statement runs as it is: a read, a statement inside a transaction, or no entry pending. */
  private plain(statement: Database.Statement): boolean {
    return statement.readonly || this.db.inTransaction || pendingAudit() === null;
  }

  /** A write outside any transaction, while an entry is pending, becomes a transaction that records it. */
  private alone<T>(work: () => T): T {
    const pending = pendingAudit();
    return pending ? this.db.transaction(this.recording(pending, work)).immediate() : work();
  }

  /** `work`, then the entry if it changed rows (total_changes() counts every row a statement wrote). */
  private recording<T>(pending: PendingAudit, work: () => T): () => T {
    return () => {
      const changes = this.statement('SELECT total_changes()').pluck();
      const before = changes.get() as number;
      const result = work();
      if ((changes.get() as number) !== before) insertPendingAudit(this, pending);
      return result;
    };
  }

  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void> {
    return this.walSync ? this.walSync.sync() : Promise.resolve();
  }
}
