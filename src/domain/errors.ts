/** Every error code the issuer answers with; the spec's table plus the contract's additions. */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_TOKEN'
  | 'PROTOCOL_VERSION_UNSUPPORTED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'TOKEN_REVOKED'
  | 'NOT_FOUND'
  | 'IDEMPOTENCY_CONFLICT'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** A field-level problem, as carried in `details.fields` of INVALID_REQUEST. */
export interface FieldProblem {
  field: string;
  problem: string;
}

/** An expected failure with a stable code; the HTTP layer maps the code to a status. */
export class IssuerError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'IssuerError';
    this.code = code;
    this.details = details;
  }
}

/** INVALID_REQUEST naming the offending fields. */
export function invalidRequest(message: string, fields: FieldProblem[]): IssuerError {
  return new IssuerError('INVALID_REQUEST', message, { fields });
}
