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

/** A refusal for good: an envelope answer other than 429 and 5xx. The scan will never be accepted as sent. */
export function isRefusal(error: unknown): error is IssuerHttpError {
  return error instanceof IssuerHttpError && error.status !== 429 && !isTransient(error);
}
