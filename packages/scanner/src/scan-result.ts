/**
 * What a scan answers (its verdict, what became of asking the issuer) and what scanning needs from
 * the scanner: the shapes that the entry, the exit and the CLI share.
 */
import { RULE_REFUSALS, type RuleRefusal } from '@ticket-issuer/protocol';
import type { IssuerClient } from './client.ts';
import { isTransient } from './errors.ts';
import type { CheckInPlace } from './knowledge.ts';
import type { ScanQueue } from './queue.ts';
import type { KnownRules } from './rules.ts';
import type { Storage } from './storage/storage.ts';
import type { KeyRing } from './token.ts';
import type { LocalKnowledge, OfflineVerdict } from './verdict.ts';

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
  /** The holder needs attention at the gate (the ticket type's or the ticket's flag). */
  attention: boolean;
  /** Texts for the gate: the ticket type's, then the ticket's (empty when none). */
  checkin_texts: string[];
  /**
   * For `not_valid_now`, `entry_limit_reached` and `too_soon`: why (the issuer's 403 details, or the
   * device's own judgement), e.g. `next_entry_at` or `valid_days`.
   */
  refusal?: RuleRefusal;
  /**
   * On an entry's verdict: the ticket's count of entries, the scan itself included when admitted (the
   * issuer's `ticket.entries`, or its refusal's `details.entries`; offline, the entries the device
   * knows). Absent where neither says (an exit, an answer without it).
   */
  entries?: number;
}

/** The count of entries an issuer's answer (its `ticket`, or a refusal's details) carries, if any. */
export function answeredEntries(from: { entries?: unknown } | null | undefined): Pick<ScanResult, 'entries'> {
  const entries = from?.entries;
  return typeof entries === 'number' && Number.isSafeInteger(entries) ? { entries } : {};
}

/** What scanning needs from the scanner. */
export interface ScanContext {
  eid: string;
  iss: string;
  scannerId: string;
  keys: KeyRing;
  /** What the changes feed taught (admitted tickets, and this device's own entries, come from the queue). */
  knowledge: Omit<LocalKnowledge, 'admitted'> & {
    checkIns?: Pick<ReadonlyMap<string, CheckInPlace>, 'get'>;
    /** Tickets whose every entry the feed told was annulled since (see FeedKnowledge.undone). */
    undone?: Pick<ReadonlySet<string>, 'has'>;
    /** The idempotency key of each of the feed's entries (`entries`), in the same order; null where none. */
    entryKeys?: Pick<ReadonlyMap<string, readonly (string | null)[]>, 'get'>;
  };
  /** The event's rules as the last sync read them: gates, re-entry, calendar, ticket types. */
  rules: KnownRules;
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
  attention: false,
  checkin_texts: Object.freeze([]) as unknown as string[],
});

/** What a failed request says of the issuer: unreachable only for a failure without its answer. */
export const contactAfter = (failure: unknown): IssuerContact => (isTransient(failure) ? 'failed' : 'answered');

/** A verdict's notes for the gate and, for a refusal by the entry rules, why. */
export function notesOf(
  local: Pick<OfflineVerdict, 'attention' | 'checkin_texts' | 'refusal'>,
): Pick<ScanResult, 'attention' | 'checkin_texts' | 'refusal'> {
  const { attention, checkin_texts, refusal } = local;
  return { attention, checkin_texts, ...(refusal === null ? {} : { refusal }) };
}

/** The notes an issuer's answer carries, each in its place of the device's own where it carries none. */
export function answeredNotes(
  from: { attention?: unknown; checkin_texts?: unknown } | null | undefined,
  local: OfflineVerdict,
): Pick<ScanResult, 'attention' | 'checkin_texts'> {
  const texts = from?.checkin_texts;
  return {
    attention: typeof from?.attention === 'boolean' ? from.attention : local.attention,
    checkin_texts:
      Array.isArray(texts) && texts.every((t) => typeof t === 'string') ? (texts as string[]) : local.checkin_texts,
  };
}

/** The rule a 403's `details.reason` names: a gate's, or one of the entry rules' (null: neither). */
export function refusalReason(details: Record<string, unknown>): string | null {
  const why = details.reason;
  if (why === 'ticket_type_not_admitted') return why;
  return (RULE_REFUSALS as readonly unknown[]).includes(why) ? (why as string) : null;
}
