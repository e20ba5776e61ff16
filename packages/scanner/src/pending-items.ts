import type { QueuedItem } from './queued-annul.ts';

/**
 * The queue's pending scans and annuls by `queueKeyOf`, in the order recorded, and each ticket's in
 * that order: what a scan asks about its own ticket costs that ticket's items, not the queue.
 */
export class PendingItems {
  private readonly byKey = new Map<string, QueuedItem>();
  private readonly byTid = new Map<string, QueuedItem[]>();

  get size(): number {
    return this.byKey.size;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  get(key: string): QueuedItem | undefined {
    return this.byKey.get(key);
  }

  /** Every item, in the order recorded (an item recorded again keeps its place). */
  values(): IterableIterator<QueuedItem> {
    return this.byKey.values();
  }

  /**
   * A ticket's items, in the order recorded. Lists are replaced, never changed, when items come and
   * go: a list once given stays as it was while its reader awaits.
   */
  ofTicket(tid: string): readonly QueuedItem[] {
    return this.byTid.get(tid) ?? [];
  }

  set(key: string, item: QueuedItem): void {
    const before = this.byKey.get(key);
    this.byKey.set(key, item);
    const list = this.byTid.get(item.tid) ?? [];
    const at = before === undefined ? -1 : list.indexOf(before);
    if (before !== undefined && at < 0) this.unlist(before);
    this.byTid.set(item.tid, at < 0 ? [...list, item] : list.map((other, i) => (i === at ? item : other)));
  }

  delete(key: string): void {
    const item = this.byKey.get(key);
    if (item === undefined) return;
    this.byKey.delete(key);
    this.unlist(item);
  }

  clear(): void {
    this.byKey.clear();
    this.byTid.clear();
  }

  private unlist(item: QueuedItem): void {
    const list = this.byTid.get(item.tid);
    const at = list?.indexOf(item) ?? -1;
    if (!list || at < 0) return;
    const rest = [...list.slice(0, at), ...list.slice(at + 1)];
    if (rest.length > 0) this.byTid.set(item.tid, rest);
    else this.byTid.delete(item.tid);
  }
}
