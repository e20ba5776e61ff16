import type { ChangeRecord, ConflictRecord, Page } from '../store.ts';
import * as feed from './feed.ts';
import type pg from 'pg';
import type { FeedStore } from '../feed-store.ts';

/** The changes feed offline scanners sync, and the conflicts report. (PostgreSQL: see ../feed-store.ts.) */
export class PostgresFeedStore implements FeedStore {
  constructor(private readonly b: { pool: pg.Pool }) {}

  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    return feed.listChanges(this.b.pool, eid, after, limit);
  }

  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return feed.listConflicts(this.b.pool, eid, limit, after);
  }
}
