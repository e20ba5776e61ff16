/**
 * What a scan answers (its verdict, what became of asking the issuer) and what scanning needs from
 * the scanner: the shapes that the entry, the exit and the CLI share.
 */
import type { GateRule } from '@ticket-issuer/protocol';
import type { IssuerClient } from './client.ts';
import { isTransient } from './errors.ts';
import type { CheckInPlace } from './knowledge.ts';
import type { ScanQueue } from './queue.ts';
import type { Storage } from './storage/storage.ts';
import type { KeyRing, LocalKnowledge } from './verdict.ts';

/** What a verdict screen shows beside the verdict, where the device knows it. */
export interface ScanTicket {
  /** Known from the issuer's answer only: a signed ticket does not carry it. */
  holder_name: string | null;
  ticket_type: string | null;
  /** For `already_used`: when the ticket was checked in, and at which gate. */
  checked_in_at: string | null;
  checked_in_gate: string | null;
}

/**
 * What became of asking the issuer about a scan. `answered`: it answered (a refusal, a 429 and a 401
 * included); `failed`: a network error, no answer in time, a 5xx or an answer that was not the
 * issuer's, the one sign that it cannot be reached; `not_asked`: an offline scan, or input that is
 * not a ticket token, which says nothing about the issuer.
 */
export type IssuerContact = 'answered' | 'failed' | 'not_asked';

/** One verdict, as the CLI prints it (`ticket`, `issuer_contact` aside: the verdict screen's details). */
export interface ScanResult {
  verdict: 'admit' | 'reject' | 'exit';
  /** An outcome of the spec, or the issuer's error code (e.g. `NOT_FOUND`) for a refused scan. */
  reason: string;
  tid: string | null;
  source: 'issuer' | 'offline';
  /** Null for input that is not a ticket token (nothing was queued). */
  idempotency_key: string | null;
  /** Whether this scan asked the issuer and what came of it: only `failed` means it is unreachable. */
  issuer_contact: IssuerContact;
  /**
   * Present, false, on a verdict the device decided from a ticket token before it ever synced the
   * changes feed and the gates: it knows no revocation nor check-in but its own.
   */
  synced?: false;
  ticket?: ScanTicket;
}

/** What scanning needs from the scanner. */
export interface ScanContext {
  eid: string;
  iss: string;
  scannerId: string;
  keys: KeyRing;
  /** What the changes feed taught (admitted tickets come from the queue). */
  knowledge: Omit<LocalKnowledge, 'admitted'> & { checkIns?: Pick<ReadonlyMap<string, CheckInPlace>, 'get'> };
  /** The declared gates by gate_id (absent: none known). */
  gates?: Pick<ReadonlyMap<string, GateRule>, 'get'>;
  /** The event lets a holder who went out in again (as the last sync read it). */
  reentry?: boolean;
  /** Where exit scans go (absent: beside the check-in endpoint). */
  checkOutUrl?: string;
  /** The feed's exits, to tell who went out. */
  feedOut?: ReadonlySet<string>;
  queue: ScanQueue;
  storage: Storage;
  client: IssuerClient;
  checkInUrl: string;
  now: () => Date;
  /** How long an online scan waits for the issuer before the offline verdict (default 3 s). */
  onlineTimeoutMs: number;
  /** The device has synced the changes feed and the gates at least once. */
  synced: boolean;
}

/**
 * The verdict for input that is not a ticket token (no compact JWS naming a tid: another QR code,
 * typed text): `not valid`, decided here, nothing queued, and nothing asked of the issuer, so it
 * says nothing about whether the issuer answers.
 */
export const UNREADABLE: Readonly<ScanResult> = Object.freeze({
  verdict: 'reject',
  reason: 'invalid_signature',
  tid: null,
  source: 'offline',
  idempotency_key: null,
  issuer_contact: 'not_asked',
});

/** What a failed request says of the issuer: unreachable only for a failure without its answer. */
export const contactAfter = (failure: unknown): IssuerContact => (isTransient(failure) ? 'failed' : 'answered');
