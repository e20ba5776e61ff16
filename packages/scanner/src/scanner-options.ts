/** How a Scanner is opened, how it scans, and what a sync answers. */
import type { RetryPolicy, Timer } from './retry.ts';
import type { SyncOutcome } from './sync.ts';
import type { Transport } from './transport.ts';

/** Tuning and test seams of a Scanner. */
export interface ScannerOptions {
  fetch?: typeof fetch;
  /** How requests travel; takes precedence over `fetch` (see `IssuerClientOptions`). */
  transport?: Transport;
  /** The clock of scan times (default: the system's). */
  now?: () => Date;
  /** How long an online scan waits for the issuer (default 3000 ms). */
  onlineTimeoutMs?: number;
  /** How long any other request (sync, feed, discovery) waits for an answer (default 5000 ms). */
  requestTimeoutMs?: number;
  retryPolicy?: RetryPolicy;
  timer?: Timer;
  /** Tickets uploaded at once during sync (default `SYNC_IN_FLIGHT`, 32). */
  concurrency?: number;
  /** Open without taking the state's lock: for reading only (status). */
  readOnly?: boolean;
}

/** How to scan: online (default) or offline, and at which gate. */
export interface ScanOptions {
  offline?: boolean;
  /** The gate; defaults to the key's gate, else none. */
  gate?: string | null;
}

/** The result of a sync, as the CLI prints it, plus what went wrong if anything did. */
export interface SyncResult {
  uploaded: number;
  remaining: number;
  /** Every refusal for good: the two below, and any other (an annul, a scan the device had no verdict on). */
  refused: number;
  /** Of `refused`: scans the device had turned away too (the device and the issuer agree). */
  refusedAgreed: number;
  /** Of `refused`: scans the device let in that the issuer refuses (real conflicts). */
  conflicts: number;
  /** The issuer's answers by outcome, and `turned_away_offline` (see `settleScan`). */
  outcomes: Record<SyncOutcome, number>;
  /** Feed entries pulled. */
  changes: number;
  /** Why the sync did not complete (scans remain, or the feed or discovery could not be read), or null. */
  problem: Error | null;
  /**
   * The offline roster's part (see roster-sync.ts): lines pulled (tickets, or digests for a key
   * without `allow_search`), and why it stopped short (asked again at the next sync), or null.
   */
  roster: { lines: number; problem: Error | null };
}
