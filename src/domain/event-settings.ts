import type { Store } from '../store/store.ts';

/** How long an instance trusts an event's re-entry setting before reading it again. */
export const SETTINGS_TTL_MS = 1000;

/**
 * Each event's re-entry setting as a check-in needs it, read from the store at most once a second
 * per instance (a check-in does not pay a read for a setting that changes once an event, if ever).
 * A change made through this instance applies at once; one made through another instance within a
 * second. The check-in itself is then decided in the store's transaction, on the holder's presence.
 */
export class EventSettingsCache {
  private readonly entries = new Map<string, { reentry: boolean; readAt: number }>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Whether the event lets a holder who went out in again; false for an unknown event. */
  async reentry(eid: string): Promise<boolean> {
    const cached = this.entries.get(eid);
    if (cached && this.now() - cached.readAt < SETTINGS_TTL_MS) return cached.reentry;
    const event = await this.store.getEvent(eid);
    const reentry = event?.reentry ?? false;
    // A bounded map: settings of events no longer scanned are dropped rather than kept for ever.
    if (this.entries.size >= 10_000) this.entries.clear();
    this.entries.set(eid, { reentry, readAt: this.now() });
    return reentry;
  }

  /** Forgets an event's settings (after this instance changed them). */
  forget(eid: string): void {
    this.entries.delete(eid);
  }
}
