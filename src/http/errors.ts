import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, IssuerError } from '../domain/errors.ts';
import { scannerLogFields } from './auth.ts';
import { discardRestOfBody } from './oversized-body.ts';
import { fieldProblems } from './validation.ts';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../store/unavailable.ts';

/** The HTTP status of every error code. */
export const STATUS_OF: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  INVALID_TOKEN: 400,
  PROTOCOL_VERSION_UNSUPPORTED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  TOKEN_REVOKED: 403,
  NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The framework's own client errors, by Fastify error code: status and what to tell the client. */
export const FRAMEWORK_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'the body must be JSON (Content-Type: application/json)' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'the Content-Length header does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'the request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'the body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'the body is not valid JSON' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, message: 'the body could not be read' },
  FST_ERR_CTP_EMPTY_TYPE: { status: 415, message: 'the Content-Type header is empty' },
  FST_ERR_CTP_INVALID_CONTENT_TYPE: { status: 415, message: 'the Content-Type header is malformed' },
  FST_ERR_BAD_URL: { status: 400, message: 'the URL is malformed' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, message: 'a path segment of the URL is too long' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, message: 'the request could not be routed' },
};

export function envelope(code: string, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}

/** The 400 envelope of a value that fails its schema: each field named with its problem. */
export function validationEnvelope(issues: Parameters<typeof fieldProblems>[0], context: string | undefined) {
  const fields = fieldProblems(issues, context);
  const summary = fields.map((f) => `${f.field} ${f.problem}`).join('; ');
  return envelope('INVALID_REQUEST', `invalid request: ${summary}`, { fields });
}

/** The one error handler: every non-2xx answer leaves through here in the envelope. */
export function handleError(error: FastifyError | IssuerError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof IssuerError) {
    const status = STATUS_OF[error.code];
    if (status >= 500 && status !== 503)
      request.log.error({ err: error, ...scannerLogFields(request) }, 'request failed');
    if (status === 503) {
      const seconds = error.details.retry_after_seconds;
      reply.header('retry-after', String(typeof seconds === 'number' ? seconds : STORE_RETRY_AFTER_SECONDS));
    }
    return reply.status(status).send(envelope(error.code, error.message, error.details));
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return reply.status(400).send(validationEnvelope(fastifyError.validation, fastifyError.validationContext));
  }
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') discardRestOfBody(request, reply);
  if (known) return reply.status(known.status).send(envelope('INVALID_REQUEST', known.message));
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    request.log.info({ err: error, ...scannerLogFields(request) }, 'client error');
    return reply
      .status(fastifyError.statusCode)
      .send(envelope('INVALID_REQUEST', 'the request could not be processed'));
  }
  if (isStoreUnavailable(error)) return storeUnavailable(error, request, reply);
  request.log.error({ err: error, ...scannerLogFields(request) }, 'request failed');
  return reply
    .status(500)
    .send(envelope('INTERNAL', 'internal error; retry with exponential backoff', { request_id: request.id }));
}

/**
 * A dependency's fault is an answer: 503 with `Retry-After`. Only the error's code and message are
 * logged (a driver's error can carry statement details that belong to nobody's log).
 */
function storeUnavailable(error: Error, request: FastifyRequest, reply: FastifyReply) {
  const code = (error as { code?: unknown }).code;
  request.log.warn(
    { store_error: { code, message: error.message }, ...scannerLogFields(request) },
    'store unavailable',
  );
  reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
  return reply.status(503).send(
    envelope('UNAVAILABLE', 'the store is unavailable; retry later', {
      retry_after_seconds: STORE_RETRY_AFTER_SECONDS,
    }),
  );
}
