/** What the stores hand back of an event's scan log: its lines, their pages, arrivals and occupancy. */
import type { ScanOutcome } from './check-in-records.ts';

/** One line of an event's scan log: a check-in attempt and what it got. */
export interface ScanRecord {
  scan_id: number;
  eid: string;
  tid: string;
  api_key_id: string;
  scanner_id: string;
  gate_id: string | null;
  idempotency_key: string;
  scanned_at: string;
  received_at: string;
  outcome: ScanOutcome;
  reason: string | null;
  replay: boolean;
  /** The scanner had already let the holder in on its own offline verdict. */
  admitted_offline: boolean;
  /** When the entry was annulled (its outcome stays `valid`), or null. */
  annulled_at: string | null;
  /** A check-in chosen from a search by the holder's name, with no ticket token. */
  manual: boolean;
  /** The enrolled name of the scanner (null when it gave none). */
  scanner_name: string | null;
  /** The ticket's holder (null for a tid that is not one of the event's tickets). */
  holder_name: string | null;
}

/**
 * A page of an event's scan log: like the changes feed, it always names a cursor (the last line's
 * place in the store's commit order, else the one the page was read after) and says whether more
 * lines follow now.
 */
export interface ScanLogPage {
  items: ScanRecord[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * A page of an event's scan log, newest first: `next_cursor` reads the older scans (null at the log's
 * start), `newer_cursor` is the `listScans` cursor that follows the log from the newest scan shown.
 */
export interface RecentScanPage {
  items: ScanRecord[];
  next_cursor: string | null;
  newer_cursor: string;
}

/** Entries in one minute of scan time (`YYYY-MM-DDThh:mm`, UTC) at one gate (null: scans that named none). */
export interface ArrivalCount {
  minute: string;
  gate_id: string | null;
  entries: number;
}

/** An event's occupancy, read in one snapshot: who is inside, and entries and exits per gate. */
export interface Occupancy {
  inside: number;
  /** Per gate_id scanned at (null: scans that named no gate), in gate_id order. */
  gates: { gate_id: string | null; entries: number; exits: number }[];
}
