/** What the stores hand back for the event report (see report-queries.ts). */

/** One ticket type's tickets: issued, revoked, checked in at least once, and neither (no-shows). */
export interface TypeCounts {
  ticket_type: string;
  issued: number;
  revoked: number;
  checked_in: number;
  no_show: number;
}

/**
 * The moves of one minute of scan time (`YYYY-MM-DDThh:mm`, UTC): entries, exits, and the entries made
 * while the holder was counted inside already (`repeats`: occupancy does not move for them).
 */
export interface MinuteMoves {
  minute: string;
  entries: number;
  exits: number;
  repeats: number;
}

/** Everything the report counts, read in one snapshot. */
export interface ReportCounts {
  types: TypeCounts[];
  /** The holders with a counted entry on each event day (`YYYY-MM-DD`) that had one. */
  dayHolders: Map<string, number>;
  /** Per gate scanned at (null: scans that named none), in gate_id order. */
  gates: { gate_id: string | null; entries: number; exits: number }[];
  /** Minutes with any move, in time order. */
  minutes: MinuteMoves[];
}
