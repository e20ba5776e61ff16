/** What the issuer's answers say: an error in the envelope, a scan's answer, an annul's answer. */
import {
  CHECK_IN_OUTCOMES,
  CHECK_OUT_STATUSES,
  type CheckInAnswer,
  type CheckOutAnswer,
} from '@ticket-issuer/protocol';
import { IssuerHttpError } from './errors.ts';

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or from the envelope's details. */
function retryAfter(header: string | null, details: Record<string, unknown>): number | null {
  if (header !== null) {
    if (/^\d+$/.test(header.trim())) return Number(header.trim());
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
  const fromDetails = details.retry_after_seconds;
  return typeof fromDetails === 'number' && fromDetails >= 0 ? fromDetails : null;
}

/** The issuer's answer to an annul: the entry no longer counts; the ticket as it is after it. */
export interface AnnulAnswer {
  status: 'annulled';
  ticket: {
    tid: string;
    eid?: string;
    holder_name?: string;
    ticket_type?: string;
    /** The ticket's last entry that still counts; null: unused again. */
    checked_in_at: string | null;
    entries?: number;
    attention?: boolean;
    checkin_texts?: string[];
  };
}

/** The typed error of an answer in the envelope (or of one that is not the issuer's JSON at all). */
export function httpErrorOf(status: number, body: unknown, retryAfterHeader: string | null): IssuerHttpError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const details = (typeof error?.details === 'object' && error.details !== null ? error.details : {}) as Record<
    string,
    unknown
  >;
  const code = typeof error?.code === 'string' ? error.code : 'INVALID_ANSWER';
  const message = typeof error?.message === 'string' ? error.message : `unexpected answer (HTTP ${status})`;
  return new IssuerHttpError(status, code, message, details, retryAfter(retryAfterHeader, details));
}

/**
 * What a scan's answer says, whether it came alone or as a result of an upload: its outcome (200, or
 * 400 `invalid_signature`), else the error it carries (the envelope, as IssuerHttpError).
 */
export function scanAnswerOf(
  action: 'check_in' | 'check_out',
  status: number,
  body: unknown,
  retryAfterHeader: string | null = null,
): CheckInAnswer | CheckOutAnswer | IssuerHttpError {
  const outcome = (body as { status?: unknown } | null)?.status;
  const outcomes: readonly unknown[] = action === 'check_in' ? CHECK_IN_OUTCOMES : CHECK_OUT_STATUSES;
  if ((status === 200 && outcomes.includes(outcome)) || (status === 400 && outcome === 'invalid_signature')) {
    return body as CheckInAnswer | CheckOutAnswer;
  }
  return httpErrorOf(status, body, retryAfterHeader);
}

/** What an annul's answer says, alone or as a result of an upload: annulled, else the error it carries. */
export function annulAnswerOf(
  status: number,
  body: unknown,
  retryAfterHeader: string | null = null,
): AnnulAnswer | IssuerHttpError {
  const answer = body as Partial<AnnulAnswer> | null;
  const ticket = answer?.ticket;
  const shaped =
    typeof ticket === 'object' &&
    ticket !== null &&
    typeof ticket.tid === 'string' &&
    (ticket.checked_in_at === null || typeof ticket.checked_in_at === 'string');
  if (status === 200 && answer?.status === 'annulled' && shaped) return answer as AnnulAnswer;
  if (status === 200) return invalidAnswer('annul answer without status annulled and the ticket');
  return httpErrorOf(status, body, retryAfterHeader);
}

/** An answer that is not the shape the issuer gives. */
export function invalidAnswer(what: string): IssuerHttpError {
  return new IssuerHttpError(200, 'INVALID_ANSWER', what);
}
