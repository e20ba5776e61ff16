/** The event's last feed position, read once per group. */
const LAST_SQL = 'SELECT last_position FROM change_counters WHERE eid = ?';

/** Takes the next position at once (outside a group): one upsert with `RETURNING`. */
const TAKE_SQL = `INSERT INTO change_counters (eid, last_position) VALUES (?, 1)
  ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + 1 RETURNING last_position`;

/** Stores a group's last position (the row is made if the group took the event's first). */
const STORE_SQL = `INSERT INTO change_counters (eid, last_position) VALUES (?, ?)
  ON CONFLICT (eid) DO UPDATE SET last_position = excluded.last_position`;

interface Taken {
  /** The event's last position when the group first took one of its positions. */
  read: number;
  /** The last position handed out in the group. */
  last: number;
}

/** How the positions reach the database: a read of one row, and a write. */
export interface PositionRows {
  last(sql: string, eid: string): number | null;
  write(sql: string, values: (string | number)[]): void;
}

/**
 * The feed's positions (change_counters) of the SQLite store. Outside a group commit a position is
 * taken by one upsert in the caller's transaction. Inside one, the event's last position is read at
 * the group's first change of that event and the next ones are handed out in memory; a unit whose
 * savepoint rolls back gives back what it took (its changes are rolled back with it, so the next unit
 * takes the same positions: the feed has no gap), and the group writes each event's last position once,
 * just before its COMMIT. Nothing else writes change_counters inside a group (the automatic exit and
 * every admin write run in transactions of their own, which SQLite serializes with the group's), so
 * the position read at the group's start is still the last when the group takes the next.
 */
export class GroupPositions {
  private group: Map<string, Taken> | null = null;
  /** Per event the unit moved, its last position when the unit began (what a rollback gives back to). */
  private unit: Map<string, number> | null = null;

  constructor(private readonly rows: PositionRows) {}

  /** The event's next feed position, taken in the caller's transaction. */
  take(eid: string): number {
    if (this.group === null) return this.rows.last(TAKE_SQL, eid)!;
    let taken = this.group.get(eid);
    if (taken === undefined) {
      const read = this.rows.last(LAST_SQL, eid) ?? 0;
      taken = { read, last: read };
      this.group.set(eid, taken);
    }
    if (this.unit !== null && !this.unit.has(eid)) this.unit.set(eid, taken.last);
    taken.last += 1;
    return taken.last;
  }

  /** A group's transaction begins: positions are handed out in memory until `flush`. */
  beginGroup(): void {
    this.group = new Map();
  }

  /** A unit of the group begins. */
  beginUnit(): void {
    this.unit = this.group === null ? null : new Map();
  }

  /** The unit's savepoint was released: its positions are the group's. */
  keepUnit(): void {
    this.unit = null;
  }

  /** The unit's savepoint rolled back: the positions it took are given back. */
  dropUnit(): void {
    if (this.unit !== null && this.group !== null)
      for (const [eid, last] of this.unit) this.group.get(eid)!.last = last;
    this.unit = null;
  }

  /** Writes each event's last position (inside the group's transaction, before COMMIT) and ends the group. */
  flush(): void {
    const group = this.group;
    this.end();
    if (group === null) return;
    for (const [eid, { read, last }] of group) if (last !== read) this.rows.write(STORE_SQL, [eid, last]);
  }

  /** Ends the group without writing (its transaction failed). */
  end(): void {
    this.group = null;
    this.unit = null;
  }
}
