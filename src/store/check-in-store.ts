import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulAttempt, AnnulResult, AnnulSeen } from './annul.ts';
import type { CheckInAttempt, CheckInDecider, CheckInResult, Presence, PresenceDecider } from './check-in-records.ts';
import type { ArrivalCount, Occupancy, RecentScanPage, ScanLogPage } from './scan-log-records.ts';
import type { AutoExitEvent, AutoExitRun } from './auto-exit.ts';

/** Check-ins, exits and undos, presence and occupancy, the automatic exit and the scan log. Every method is one transaction; each says what it guarantees. */
export interface CheckInStore {
  /**
   * How many scans of one upload may be applied at once where each takes a transaction of its own
   * (exits, entries decided on presence): fewer than the store's connections, so that an upload never
   * takes the connections the other gates' check-ins need.
   */
  readonly uploadConcurrency: number;
  /**
   * Applies one check-in attempt atomically. First the attempt's API key is judged as it stands
   * inside the transaction (revoked, or expired at `received_at`: `key_refused`, nothing stored), so
   * a key revoked anywhere is refused on its next check-in. A known idempotency key (per event) with the same
   * fingerprint returns its first answer; with another fingerprint, a conflict. Otherwise
   * `decide` sees the ticket as it is inside the transaction, and the declared gate the attempt names
   * (null when it names none or an undeclared one), and its verdict is applied and remembered; if `decide` throws, nothing is stored and the error reaches the caller.
   * Concurrent attempts on one ticket or one key are serialized: one winner.
   * Every attempt is appended to the scan log; a check-in appends a `checked_in` change to the feed.
   */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult>;
  /** Appends a refused attempt (outcome `refused`, with the reason) to the event's scan log; nothing else changes. */
  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void>;
  /**
   * An exit scan, with check-in's idempotency (the same key space) and scan log: `decide` sees the
   * ticket and whether its holder is inside; a verdict's move `to: 'out'` takes a holder inside out
   * (and appends a `checked_out` change) in the same transaction.
   */
  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult>;
  /**
   * An entry decided with the holder's presence known (events with re-entry), in a transaction of
   * its own like an exit; a verdict's move `from: 'out'` lets a holder who went out in again.
   */
  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult>;
  /** Whether the ticket's holder is inside (null: never came in). */
  getPresence(tid: string): Promise<Presence | null>;
  /** The `scanned_at` of the ticket's counted entries (not annulled). */
  getEntries(tid: string): Promise<string[]>;
  /**
   * Annuls an entry, if `judge` (the shared rule, on what the transaction read) lets it: the entry no
   * longer counts, the holder is back where they were, the counts move back, an `annulled` change and
   * its webhook message are appended, the scan log marks the scan (see store/annul.ts).
   */
  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult>;
  /** The event's occupancy: inside now, and entries and exits per gate, from its counter rows. */
  occupancy(eid: string): Promise<Occupancy>;
  /** The event's entries per minute of scan time and gate, in time order, from its counter rows. */
  arrivals(eid: string): Promise<ArrivalCount[]>;
  /**
   * The events with automatic exit on, each with the instant it took effect: its creation, or for one
   * switched on later, the `now` of the first call that saw it on (store/auto-exit.ts).
   */
  listAutoExitEvents(now: string): Promise<AutoExitEvent[]>;
  /**
   * Counts out, at the start of an event day, every holder of the event inside whose latest entry came
   * before it, in one transaction with the day's `auto_exits` row: presence out, a `checked_out` change
   * marked auto for each, their messages, the exits counted. Once per event and day across instances:
   * null when the day was done already (concurrent calls see one winner); else how many went out.
   */
  runAutoExit(run: AutoExitRun): Promise<number | null>;
  /**
   * The event's scan log in commit order, a page at a time, after a cursor a page gave: a pager that
   * follows `next_cursor` sees every scan once, a scan that committed late included.
   */
  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage>;
  /** The event's latest scans, newest first, a page at a time (cursor: a `next_cursor` this gave). */
  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage>;
}
