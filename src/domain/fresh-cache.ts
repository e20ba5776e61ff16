/** What a FreshCache is told at its making. */
export interface FreshCacheOptions<V> {
  /** No value is served older than this: past it, the next request waits for a read. */
  ttlMs: number;
  /** How many keys it holds: a full cache starts afresh rather than grow (default 10,000). */
  capacity?: number;
  /** Which values are remembered (default all): e.g. not a miss, so that made-up keys cannot fill it. */
  keep?: (value: V) => boolean;
  /** Milliseconds on a clock that only moves forward (tests move their own). */
  now?: () => number;
}

/**
 * Values an instance reads from the store on every request and trusts for a while (`ttlMs`): an
 * event's entry rules, a scanner's key, a signing key. A change made through this instance is seen at
 * once (`forget`), one made through another within `ttlMs`.
 *
 * - Requests that find no value fresh while its read runs wait for that read rather than read again:
 *   a burst of scans reads once, not once each.
 * - A value past half of `ttlMs` is still served, and read again beside it, once. Under steady traffic
 *   no request waits for a read: before, every request that arrived while an expired value was read
 *   again waited for that read, on PostgreSQL a round trip beside the check-in batches (a stall of the
 *   gates once a second: with `ticket_token`, twice the check-ins' p99).
 * - A read that fails fails the requests that wait for it; one made beside a served value fails
 *   nobody, and the value expires as it would have.
 * - `forget` drops the value and any read under way: a read that began before a change made here
 *   does not put back what it read.
 */
export class FreshCache<K, V> {
  private readonly entries = new Map<K, { value: V; readAt: number }>();
  private readonly reading = new Map<K, Promise<V>>();
  private readonly ttlMs: number;
  private readonly capacity: number;
  private readonly keep: (value: V) => boolean;
  private readonly now: () => number;

  constructor(options: FreshCacheOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.capacity = options.capacity ?? 10_000;
    this.keep = options.keep ?? (() => true);
    this.now = options.now ?? (() => performance.now());
  }

  /** The value under `key`: the remembered one while fresh, otherwise what `read` answers. */
  get(key: K, read: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      const age = this.now() - entry.readAt;
      if (age < this.ttlMs) {
        if (age >= this.ttlMs / 2 && !this.reading.has(key)) this.start(key, read).catch(() => undefined);
        return Promise.resolve(entry.value);
      }
      this.entries.delete(key);
    }
    return this.reading.get(key) ?? this.start(key, read);
  }

  /** Drops the value under `key`, and the read under way for it. */
  forget(key: K): void {
    this.entries.delete(key);
    this.reading.delete(key);
  }

  private start(key: K, read: () => Promise<V>): Promise<V> {
    // Kept only while it is still the key's current read: a `forget` while it ran wins.
    const current = () => this.reading.get(key) === reading;
    let attempt: Promise<V>;
    try {
      attempt = read();
    } catch (error) {
      // A read that throws before its promise fails like one whose promise fails.
      attempt = Promise.reject(error as Error);
    }
    const reading: Promise<V> = attempt.then(
      (value) => {
        if (current()) {
          this.reading.delete(key);
          if (this.keep(value)) {
            if (this.entries.size >= this.capacity) this.entries.clear();
            this.entries.set(key, { value, readAt: this.now() });
          } else this.entries.delete(key);
        }
        return value;
      },
      (error: unknown) => {
        if (current()) this.reading.delete(key);
        throw error;
      },
    );
    this.reading.set(key, reading);
    return reading;
  }
}
