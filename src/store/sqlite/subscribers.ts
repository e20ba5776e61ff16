import type { SqliteContext } from './context.ts';

/**
 * Which (message type, event) pairs some webhook endpoint subscribes to, kept in memory: most events
 * have no endpoint, and asking SQLite per change (a write statement, with its statement journal) cost
 * every check-in a statement that wrote nothing. One process writes an SQLite store, and every write of
 * `webhook_subscriptions` goes through webhooks.ts, which calls `changed()` after it: the copy is read
 * again at the next change reported.
 */
export class Subscribers {
  private pairs: Set<string> | null = null;

  /** Whether an endpoint subscribes to this type of message for this event (or to all types, or all events). */
  any(c: SqliteContext, type: string, eid: string | null): boolean {
    const pairs = (this.pairs ??= new Set(
      c
        .all<{ type: string; eid_key: string }>('SELECT DISTINCT type, eid_key FROM webhook_subscriptions')
        .map((row) => pairOf(row.type, row.eid_key)),
    ));
    if (pairs.size === 0) return false;
    const key = eid ?? '';
    return (
      pairs.has(pairOf(type, key)) ||
      pairs.has(pairOf(type, '')) ||
      pairs.has(pairOf('*', key)) ||
      pairs.has(pairOf('*', ''))
    );
  }

  /** The subscriptions were written: read them again when next asked. */
  changed(): void {
    this.pairs = null;
  }
}

const pairOf = (type: string, eidKey: string): string => `${type}\u0000${eidKey}`;
