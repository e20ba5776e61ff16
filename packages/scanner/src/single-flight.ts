/**
 * Work that callers who overlap share: while a run for a key is under way, another call for that key
 * gets its promise instead of starting a run of its own; once it settles (an answer or a failure),
 * the next call starts afresh. Nothing is kept after that: it spares duplicate requests, it caches
 * nothing.
 */
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  /** The run under way for `key`, else a new run of `work`. */
  run(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) return running;
    const started = (async () => work())().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
