/**
 * A channel of the outbox (webhooks, email, Apple pass pushes, Google Wallet pushes), as the one
 * OutboxWorker drives it: how due items are claimed, attempted and recorded, and how ended ones are
 * purged. The loop, the leases' bookkeeping, the concurrency, the batching of results and the answer
 * to a failing store are the worker's; what an item is and what its attempt does are the sender's.
 */

/** What one claim may take. */
export interface Room {
  /** Items in all (at least 1). */
  limit: number;
  /** Items one group may have under way at once (only for a sender that groups its items). */
  perGroup: number;
  /** The groups with items under way on this instance, and how many more each may take now. */
  groups: { group: string; free: number }[];
}

export interface Sender<Item, Result> {
  /** The channel in log lines ("webhook delivery"). */
  readonly name: string;
  /**
   * Takes due items, at most `room.limit`, each under a lease of its own with a fresh token: no two
   * claims hold one item at once, and a result can only be recorded under the claim that made it.
   */
  claim(room: Room): Promise<Item[]>;
  /** The group an item counts in for `perGroup` (a webhook's endpoint); none: the sender does not group. */
  group?(item: Item): string;
  /**
   * Attempts one item and answers its end, to be recorded under the item's lease; null when there is
   * nothing to record (the item is left to a later claim once its lease ends). `claimedAt` is
   * `performance.now()` when the claim answered: an attempt that cannot end inside its lease is not made.
   * Counting the attempt (the channel's metrics) is the sender's.
   */
  attempt(item: Item, claimedAt: number): Promise<Result | null>;
  /** Records ends in one transaction, each only while the claim that made it still holds its item. */
  record(results: Result[]): Promise<void>;
  /** Deletes a bounded batch of ended items; answers whether the batch was full (more are waiting). */
  purge?(): Promise<boolean>;
}

/** How much one worker attempts at once. */
export interface Limits {
  /** Attempts under way at once on this instance (Infinity: bounded by the claims and groups only). */
  concurrency: number;
  /** Items one claim takes at most. */
  claimLimit: number;
  /** Attempts under way at once in one group (a sender with `group`). */
  perGroup: number;
}
