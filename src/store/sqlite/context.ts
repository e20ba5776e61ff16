import type Database from 'better-sqlite3';
import type { WalSync } from './wal-sync.ts';

/**
 * What every concern file of the SQLite store works with: the connection, its prepared statements,
 * and the transaction helpers. The store owns it; each Store method hands it to one function.
 */
export class SqliteContext {
  private readonly statements = new Map<string, Database.Statement>();

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

  one<T>(sql: string, ...params: unknown[]): T | null {
    return (this.statement(sql).get(...params) as T | undefined) ?? null;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  run(sql: string, ...params: unknown[]): number {
    return this.statement(sql).run(...params).changes;
  }

  /** One IMMEDIATE transaction; resolves once it is durable. */
  async tx<T>(fn: () => T): Promise<T> {
    const result = this.db.transaction(fn).immediate();
    await this.durable();
    return result;
  }

  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void> {
    return this.walSync ? this.walSync.sync() : Promise.resolve();
  }
}
