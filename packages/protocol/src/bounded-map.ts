/**
 * A map that holds at most `limit` entries and forgets the least recently used one first: the caches of
 * time zones and day starts stay small whatever the zones and dates a long-running process meets.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`not a size limit: ${limit}`);
  }

  /** The value kept for `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value kept for `key`, or undefined, leaving the order of use as it is (oldest first out). */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` for `key`, forgetting the least recently used entry when the map is full. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }
}
