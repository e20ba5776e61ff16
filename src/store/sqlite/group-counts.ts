import { addCountsSql, CountDeltas, type CountMoves, type KeptCount } from '../kept-counts.ts';

/**
 * The kept counts of the SQLite store (see kept-counts.ts). Outside a group commit a move is written
 * at once, in the caller's transaction. Inside one, a unit's moves are added up in memory: they join
 * the group's only when the unit's savepoint is released (a unit that rolls back leaves none), and the
 * group writes each moved row once, just before its COMMIT. Nothing reads a kept count inside a group
 * (check-ins only move them), so what they read is never behind what they wrote.
 */
export class GroupCounts {
  private readonly sql = new Map<KeptCount, string>();
  private group: CountDeltas | null = null;
  private unit: CountDeltas | null = null;

  constructor(private readonly write: (sql: string, values: (string | number)[]) => void) {}

  /** Adds a move to a kept count: to the running unit's, or written now outside a group. */
  add(kept: KeptCount, key: readonly string[], moves: CountMoves): void {
    if (this.unit !== null) {
      this.unit.add(kept, key, moves);
      return;
    }
    this.write(this.sqlOf(kept), [...key, ...kept.counts.map((column) => moves[column] ?? 0)]);
  }

  /** A group's transaction begins: its units' moves are kept until `flush`. */
  beginGroup(): void {
    this.group = new CountDeltas();
  }

  /** A unit of the group begins. */
  beginUnit(): void {
    this.unit = new CountDeltas();
  }

  /** The unit's savepoint was released: its moves join the group's. */
  keepUnit(): void {
    if (this.unit !== null) this.group?.addAll(this.unit);
    this.unit = null;
  }

  /** The unit's savepoint rolled back: its moves are forgotten. */
  dropUnit(): void {
    this.unit = null;
  }

  /** Writes the group's moves (inside its transaction, before COMMIT) and ends the group. */
  flush(): void {
    const group = this.group;
    this.end();
    if (group !== null) this.writeAll(group);
  }

  /** Ends the group without writing (its transaction failed). */
  end(): void {
    this.group = null;
    this.unit = null;
  }

  private writeAll(deltas: CountDeltas): void {
    for (const { kept, values } of deltas.drain()) this.write(this.sqlOf(kept), values);
  }

  private sqlOf(kept: KeptCount): string {
    let sql = this.sql.get(kept);
    if (sql === undefined) {
      sql = addCountsSql(kept);
      this.sql.set(kept, sql);
    }
    return sql;
  }
}
