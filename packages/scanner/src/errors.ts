/** Every failure the scanner library reports, as a value with a stable code (jose's habit). */
export const SCANNER_ERROR_CODES = [
  'INVALID_SETUP_URI',
  'NOT_ENROLLED',
  'ALREADY_ENROLLED',
  'STATE_CORRUPT',
  'STATE_IN_USE',
  'STATE_IO',
  'ISSUER_MISMATCH',
  'ISSUER_UNREACHABLE',
  'ISSUER_TIMEOUT',
  'ISSUER_ERROR',
  'INVALID_ANSWER',
  'INVALID_OPTION',
] as const;
export type ScannerErrorCode = (typeof SCANNER_ERROR_CODES)[number];

/** A scanner-side failure with a stable code; its message never carries a secret. */
export class ScannerError extends Error {
  readonly code: ScannerErrorCode;

  constructor(code: ScannerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScannerError';
    this.code = code;
  }
}

/** What to do about each state file that cannot be parsed, and what doing it loses. */
const STATE_ADVICE: Record<string, string> = {
  'scanner.json':
    'restore it from a backup, or remove it and enrol again (the device gets a new scanner_id; queued scans are kept)',
  'credentials.json': 'enrol again with a new setup code (queued scans are kept and sync under the new key)',
  'discovery.json': 'enrol again with a new setup code, or restore it from a backup (queued scans are kept)',
  'knowledge.json': 'remove it; the next sync pulls the changes feed from the start (nothing is lost)',
  'knowledge.jsonl':
    'remove it; the next sync pulls the changes feed again from where knowledge.json leaves it (nothing is lost)',
  'roster.jsonl': 'remove it; the next sync pulls the roster again from the start (nothing is lost)',
  'rules.json': "remove it; the next sync reads the event's rules again (nothing is lost)",
  'gates.json': 'remove it; the next sync reads the gates again (nothing is lost)',
  'journal.jsonl':
    'restore it from a backup, or delete the line named (a scan on that line is lost; a lost acknowledgement only means a resend)',
};

/** A state file that cannot be parsed: names the file, what is wrong, and what to do. */
export class StateCorruptError extends ScannerError {
  /** The file's name inside the state directory. */
  readonly file: string;
  readonly problem: string;
  readonly advice: string;

  constructor(file: string, problem: string) {
    const advice = STATE_ADVICE[file] ?? 'restore it from a backup';
    super('STATE_CORRUPT', `state file ${file} is corrupted (${problem}): ${advice}`);
    this.name = 'StateCorruptError';
    this.file = file;
    this.problem = problem;
    this.advice = advice;
  }

  /** The same message with the file's full path. */
  messageAt(path: string): string {
    return `state file ${path} is corrupted (${this.problem}): ${this.advice}`;
  }
}

/** The issuer answered with its error envelope (any non-2xx without a check-in outcome). */
export class IssuerHttpError extends ScannerError {
  /** The HTTP status. */
  readonly status: number;
  /** The envelope's code (`NOT_FOUND`, `RATE_LIMITED`, …), or `INVALID_ANSWER` when there was no envelope. */
  readonly issuerCode: string;
  /** The issuer's own message, without the status prefix. */
  readonly issuerMessage: string;
  readonly details: Record<string, unknown>;
  /** Seconds to wait before retrying, from `Retry-After` (429) when the issuer sent one. */
  readonly retryAfterSeconds: number | null;

  constructor(
    status: number,
    issuerCode: string,
    message: string,
    details: Record<string, unknown> = {},
    retryAfterSeconds: number | null = null,
  ) {
    super('ISSUER_ERROR', `issuer answered ${status} ${issuerCode}: ${message}`);
    this.name = 'IssuerHttpError';
    this.status = status;
    this.issuerCode = issuerCode;
    this.issuerMessage = message;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Whether a request that failed without an answer may still have reached the issuer. */
export type Delivery = 'not_sent' | 'maybe';

/** No answer: the connection failed or the time ran out. */
export class IssuerNetworkError extends ScannerError {
  readonly delivery: Delivery;

  constructor(code: 'ISSUER_UNREACHABLE' | 'ISSUER_TIMEOUT', message: string, delivery: Delivery, cause?: unknown) {
    super(code, message, { cause });
    this.name = 'IssuerNetworkError';
    this.delivery = delivery;
  }
}

/** Worth another try later: no answer, a 5xx, or an answer that was not the issuer's JSON. */
export function isTransient(error: unknown): boolean {
  if (error instanceof IssuerNetworkError) return true;
  if (error instanceof IssuerHttpError) return error.status >= 500 || error.issuerCode === 'INVALID_ANSWER';
  return false;
}

/** A 429 RATE_LIMITED. */
export function isRateLimited(error: unknown): error is IssuerHttpError {
  return error instanceof IssuerHttpError && error.status === 429;
}

/**
 * A 401: the issuer no longer accepts this scanner's API key (revoked or expired). It says nothing
 * about any scan: scans stay queued until the device is enrolled again.
 */
export function isKeyRejected(error: unknown): error is IssuerHttpError {
  return error instanceof IssuerHttpError && error.status === 401;
}

/** What the CLI says, alone on stderr, when the issuer rejects the key. */
export const KEY_REJECTED_LINE = "this scanner's key is revoked or expired: enrol again";

/**
 * A refusal for good: an envelope answer other than 401, 429 and 5xx. The scan will never be
 * accepted as sent.
 */
export function isRefusal(error: unknown): error is IssuerHttpError {
  return error instanceof IssuerHttpError && error.status !== 429 && error.status !== 401 && !isTransient(error);
}

/** The `details.reason` of the issuer's answer below, and the name sync counts it under in `outcomes`. */
export const TURNED_AWAY_OFFLINE = 'turned_away_offline';

/**
 * The issuer's answer to an upload of a scan the device turned away, where its own decision would
 * have been `valid`: 409 CONFLICT, `details.reason` `turned_away_offline`. The ticket stays unused;
 * for the scan it is a final answer, not a refusal.
 */
export function isTurnedAwayAnswer(error: unknown): error is IssuerHttpError {
  return (
    error instanceof IssuerHttpError &&
    error.status === 409 &&
    error.issuerCode === 'CONFLICT' &&
    error.details.reason === TURNED_AWAY_OFFLINE
  );
}
