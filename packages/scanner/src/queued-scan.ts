/** A queued scan: what is kept of it until the issuer answers, and the body it is sent as. */
import type { CheckInRequestBody, HolderState, OfflineOutcome } from '@ticket-issuer/protocol';

/** One scan waiting for the issuer, with everything needed to send it exactly as it was made. */
export interface QueuedScan {
  idempotency_key: string;
  tid: string;
  /** The scanned string, kept for the organizer even when it is not sent. */
  ticket_token: string;
  /** False when the token verified but names another event: it is sent without it, `signature_valid: true`. */
  send_token: boolean;
  /** ISO 8601 UTC with Z; sent unchanged however late. */
  scanned_at: string;
  gate_id: string | null;
  /** The holder was let in on this device's own verdict. */
  admitted_offline: boolean;
  /**
   * The holder was not let in on this device: an offline `reject`, or an online scan cut short by a
   * rejected key (no verdict shown). Such a scan never becomes a check-in. Absent in journals written
   * before it existed: read as `verdict === 'reject'` there.
   */
  turned_away?: boolean;
  /** The device's own verdict (`exit`: let out, on an exit scan). */
  verdict: 'admit' | 'reject' | 'exit';
  /** `out` for an exit scan (sent to the check-out endpoint); absent for an entry. */
  direction?: 'out';
  reason: OfflineOutcome;
  /** An online attempt may have reached the issuer without `admitted_offline` (timeout, reset, 5xx). */
  maybe_sent_plain: boolean;
  /**
   * Where the device knew the holder was before this entry scan: where an annul of it puts them
   * back. Absent on exits, and in journals written before it existed (read as `unused`).
   */
  before?: HolderState;
  /**
   * Gate staff chose the ticket by the holder's name (a search, or a member of a group): no token was
   * scanned, and it is sent without one, with `manual: true`.
   */
  manual?: true;
  /** Gate staff typed the ticket's short code: sent by its tid alone, without a token. */
  typed?: true;
}

/**
 * What a queued scan tells the issuer about the holder: let in on the device's verdict, turned away
 * by it, or nothing (an online attempt that got no answer before the process ended).
 */
export type DeviceReport = 'admitted' | 'turned_away' | 'none';

export function deviceReport(scan: QueuedScan): DeviceReport {
  if (scan.admitted_offline) return 'admitted';
  // An exit carries no report of the device's: nobody is let in on it.
  if (scan.direction === 'out') return 'none';
  return (scan.turned_away ?? scan.verdict === 'reject') ? 'turned_away' : 'none';
}

/**
 * The check-in body of a queued scan; `plain` gives the body an online attempt sent. An admission
 * carries `admitted_offline: true`. A turned-away scan never checks a ticket in: an offline
 * `invalid_signature` carries `signature_valid: false` (the issuer then answers `invalid_signature`
 * whatever the token), any other one `admitted_offline: false` (the issuer answers 409
 * `turned_away_offline` where it would have said `valid`). A manual scan (chosen from a search by
 * the holder's name) carries `manual: true` and no token.
 */
export function checkInBody(
  scan: QueuedScan,
  who: { eid: string; scanner_id: string },
  plain = false,
): CheckInRequestBody {
  const report = plain ? 'none' : deviceReport(scan);
  const badSignature = report === 'turned_away' && scan.reason === 'invalid_signature' && !scan.manual && !scan.typed;
  let token: Pick<CheckInRequestBody, 'ticket_token' | 'signature_valid' | 'manual'>;
  if (scan.manual) token = { manual: true };
  else if (scan.typed) token = {};
  else if (badSignature) token = { ticket_token: scan.ticket_token, signature_valid: false };
  else token = scan.send_token ? { ticket_token: scan.ticket_token } : { signature_valid: true };
  return {
    tid: scan.tid,
    eid: who.eid,
    scanned_at: scan.scanned_at,
    scanner_id: who.scanner_id,
    ...(scan.gate_id === null ? {} : { gate_id: scan.gate_id }),
    idempotency_key: scan.idempotency_key,
    ...token,
    ...(report === 'admitted' ? { admitted_offline: true } : {}),
    ...(report === 'turned_away' && !badSignature ? { admitted_offline: false } : {}),
  };
}
