/**
 * Kept counts as moves to add up (shared by every backend, `?` placeholders): a kept-count table is
 * its key columns and its count columns, and a move adds deltas to one key's row (made at zero when
 * it has none yet). Moves to the same key add up in memory (`CountDeltas`), so that many check-ins
 * committed together write each row they move once instead of once each. A new kept count is one
 * more `KeptCount`; the writers need no change.
 */

/** A table of kept counts: which columns name a row, and which count. */
export interface KeptCount {
  table: string;
  keys: readonly string[];
  counts: readonly string[];
}

/** An event's counters (see counters.ts). */
export const EVENT_COUNTS: KeptCount = {
  table: 'event_counters',
  keys: ['eid'],
  counts: ['issued', 'checked_in', 'revoked', 'conflicts'],
};

/** Entries, exits and repeats per event and gate (`gate_key` '' for none). */
export const GATE_COUNTS: KeptCount = {
  table: 'gate_counts',
  keys: ['eid', 'gate_key'],
  counts: ['entries', 'exits', 'repeats'],
};

/** Entries per event, minute of scan time and gate. */
export const ARRIVAL_COUNTS: KeptCount = {
  table: 'arrival_counts',
  keys: ['eid', 'minute', 'gate_key'],
  counts: ['entries'],
};

/** Exits and re-entries (entries made while counted inside) per event and minute (minute-counts.ts). */
export const MINUTE_COUNTS: KeptCount = {
  table: 'minute_counts',
  keys: ['eid', 'minute'],
  counts: ['exits', 'repeats'],
};

/** The report's counts per event and ticket type (report-counts.ts). */
export const TYPE_COUNTS: KeptCount = {
  table: 'type_counts',
  keys: ['eid', 'ticket_type'],
  counts: ['issued', 'checked_in', 'revoked', 'checked_in_revoked'],
};

/** The holders with a counted entry per event and event day (report-counts.ts). */
export const DAY_HOLDERS: KeptCount = { table: 'day_holders', keys: ['eid', 'day'], counts: ['holders'] };

/** The statement that adds to one row (params: the key's values, then every count's delta). */
export function addCountsSql(kept: KeptCount): string {
  const columns = [...kept.keys, ...kept.counts];
  const sums = kept.counts.map((column) => `${column} = ${kept.table}.${column} + excluded.${column}`);
  return `INSERT INTO ${kept.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
  ON CONFLICT (${kept.keys.join(', ')}) DO UPDATE SET ${sums.join(', ')}`;
}

/** What a move adds to a row: a delta per count column (absent: 0). */
export type CountMoves = Readonly<Partial<Record<string, number>>>;

interface Row {
  key: readonly string[];
  deltas: number[];
}

/** Moves added up per table and key, in the order each row was first moved. */
export class CountDeltas {
  private readonly rows = new Map<KeptCount, Map<string, Row>>();

  /** Adds a move to the key's row. */
  add(kept: KeptCount, key: readonly string[], moves: CountMoves): void {
    const row = this.rowOf(kept, key);
    kept.counts.forEach((column, i) => {
      row.deltas[i]! += moves[column] ?? 0;
    });
  }

  /** Adds every move of another set. */
  addAll(other: CountDeltas): void {
    for (const [kept, rows] of other.rows) {
      for (const row of rows.values()) {
        const mine = this.rowOf(kept, row.key);
        row.deltas.forEach((delta, i) => {
          mine.deltas[i]! += delta;
        });
      }
    }
  }

  /** Whether no move was added. */
  get empty(): boolean {
    return this.rows.size === 0;
  }

  /** Each moved row once (the parameters of `addCountsSql`), and forgets them. */
  drain(): { kept: KeptCount; values: (string | number)[] }[] {
    const out: { kept: KeptCount; values: (string | number)[] }[] = [];
    for (const [kept, rows] of this.rows) {
      for (const row of rows.values()) out.push({ kept, values: [...row.key, ...row.deltas] });
    }
    this.rows.clear();
    return out;
  }

  private rowOf(kept: KeptCount, key: readonly string[]): Row {
    let rows = this.rows.get(kept);
    if (!rows) {
      rows = new Map();
      this.rows.set(kept, rows);
    }
    const id = key.join('\u0000');
    let row = rows.get(id);
    if (!row) {
      row = { key, deltas: kept.counts.map(() => 0) };
      rows.set(id, row);
    }
    return row;
  }
}
