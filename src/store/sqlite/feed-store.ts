import type { ChangeRecord, ConflictRecord, Page } from '../store.ts';
import { SqliteContext } from './context.ts';
import { listChanges, listConflicts } from './feed.ts';
import type { FeedStore } from '../feed-store.ts';

/** The changes feed offline scanners sync, and the conflicts report. (Sqlite: see ../feed-store.ts.) */
export class SqliteFeedStore implements FeedStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  listChanges(eid: string, after: number, limit: number): Promise<{ items: ChangeRecord[]; has_more: boolean }> {
    return listChanges(this.b.ctx, eid, after, limit);
  }

  listConflicts(eid: string, limit: number, after: number | null): Promise<Page<ConflictRecord>> {
    return listConflicts(this.b.ctx, eid, limit, after);
  }
}
