/** What the stores hand back of an event's changes feed and its conflicts report. */

export type ChangeType = 'checked_in' | 'checked_out' | 'revoked' | 'token_superseded' | 'ticket_notes' | 'annulled';

/** One entry of an event's changes feed; positions count 1, 2, 3… per event, without gaps. */
export interface ChangeRecord {
  eid: string;
  position: number;
  type: ChangeType;
  tid: string;
  at: string;
  /** For `checked_in` and `checked_out`: who let the holder in or out, and at which gate (null: an automatic exit). */
  scanner_id: string | null;
  gate_id: string | null;
  /** For `checked_out` only: true for an automatic exit at the start of an event day. */
  auto?: boolean;
  /** For `token_superseded`: the superseded token's id (null for a token issued without one). */
  jti: string | null;
  /** For `ticket_notes` only: the ticket's gate notes as this change set them. */
  attention?: boolean;
  checkin_text?: string | null;
  /** For `checked_in`: the entry's idempotency key; for `annulled`: the key of the entry undone. */
  idempotency_key?: string;
}

/** A scan as the conflicts report shows it. */
export interface ConflictScan {
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  scanned_at: string;
  received_at: string;
  admitted_offline: boolean;
}

/** A duplicate of the conflicts report: `reason` is the entry rules' refusal, null for `already_used`. */
export interface ConflictDuplicate extends ConflictScan {
  reason: string | null;
}

/**
 * A ticket let in twice, or against its entry rules: its entry (see conflicts.ts) and the scans that
 * could not have known of it, or that the rules refused.
 */
export interface ConflictRecord {
  tid: string;
  holder_name: string;
  first: ConflictScan;
  duplicates: ConflictDuplicate[];
}
