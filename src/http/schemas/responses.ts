import { type TSchema, Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../domain/errors.ts';
import { STATUS_OF } from '../errors.ts';
import { named, StringEnum } from './components.ts';

/** Every code an error envelope may carry: the spec's table plus the issuer's own (CONFLICT…). */
const ERROR_CODES = Object.keys(STATUS_OF) as ErrorCode[];

export const ErrorBody = Type.Object({
  code: StringEnum(ERROR_CODES, { description: 'stable code; the HTTP status follows from it' }),
  message: Type.String({ description: 'for people: what went wrong and what to do' }),
  details: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'INVALID_REQUEST: `fields` [{field, problem}]; RATE_LIMITED: `retry_after_seconds`; INTERNAL: `request_id`',
    },
  ),
});

/** The envelope of every non-2xx answer. */
export const ErrorEnvelope = named(
  'ErrorEnvelope',
  Type.Object({ error: ErrorBody }, { description: 'The envelope of every non-2xx answer' }),
);

type Headers = Record<string, TSchema>;
type Examples = Record<string, { summary: string; value: unknown }>;

const RequestIdHeader = {
  'X-Request-Id': Type.String({
    description: "this request's id (the caller's own X-Request-Id when it is a sane token); logs carry it",
  }),
};

export const RetryAfterHeader = {
  'Retry-After': Type.Integer({ minimum: 1, description: 'seconds to wait before trying again' }),
};

/** A JSON answer, described, with its headers (X-Request-Id on all) and named examples. */
export function json<T extends TSchema>(
  description: string,
  schema: T,
  options: { headers?: Headers; examples?: Examples } = {},
) {
  return {
    description,
    headers: { ...RequestIdHeader, ...options.headers },
    content: { 'application/json': { schema, ...(options.examples ? { examples: options.examples } : {}) } },
  };
}

/** A non-JSON answer (an image, text), described, with its media types. */
export function media(description: string, types: string[], schema: TSchema = Type.String({ format: 'binary' })) {
  return {
    description,
    headers: RequestIdHeader,
    content: Object.fromEntries(types.map((type) => [type, { schema }])),
  };
}

/** An answer without a body (a 304). */
export function empty(description: string, headers: Headers = {}) {
  return Type.Null({ description, headers: { ...RequestIdHeader, ...headers } });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'INVALID_REQUEST: the request is malformed (`details.fields` names each field and its problem); or PROTOCOL_VERSION_UNSUPPORTED',
  401: 'UNAUTHORIZED: the credential is missing, invalid, expired or revoked',
  403: 'FORBIDDEN: the credential is valid, but not for this resource',
  404: 'NOT_FOUND: the resource does not exist',
  409: 'CONFLICT: the resource is not in a state that allows this',
  413: 'INVALID_REQUEST: the request body is too large',
  415: 'INVALID_REQUEST: the request body is not JSON (Content-Type: application/json)',
  429: 'RATE_LIMITED: too many requests; wait the seconds of Retry-After, then back off exponentially',
  500: 'INTERNAL: server error; retry with exponential backoff (`details.request_id` finds it in the logs)',
  503: 'UNAVAILABLE: a part the issuer needs does not answer',
};

/** An example error envelope. */
export const errorExample = (code: ErrorCode, message: string, details: Record<string, unknown> = {}) => ({
  error: { code, message, details },
});

/** One typical answer per status, so that a reader sees the right code (not the enum's first). */
const ERROR_EXAMPLES: Record<number, ReturnType<typeof errorExample>> = {
  400: errorExample('INVALID_REQUEST', 'invalid request: <field> <what it must be>', {
    fields: [{ field: '<field>', problem: '<what it must be>' }],
  }),
  401: errorExample('UNAUTHORIZED', 'a valid credential is required (Authorization: Bearer <credential>)'),
  403: errorExample('FORBIDDEN', 'this API key is not valid for this event'),
  404: errorExample('NOT_FOUND', 'no resource has this id'),
  409: errorExample('CONFLICT', 'the resource is not in a state that allows this'),
  413: errorExample('INVALID_REQUEST', 'the request body is too large'),
  415: errorExample('INVALID_REQUEST', 'the body must be JSON (Content-Type: application/json)'),
  429: errorExample('RATE_LIMITED', 'too many requests; retry after 12 s', { retry_after_seconds: 12 }),
  500: errorExample('INTERNAL', 'internal error; retry with exponential backoff', {
    request_id: '3f1c0a52-8e47-4d2b-9a61-7c5e0b9d2f84',
  }),
  503: errorExample('UNAVAILABLE', 'the issuer cannot serve: its store does not answer', {
    checks: { store: 'error', redis: 'ok' },
  }),
};

/** One error answer in the envelope; `description` and `examples` override the generic ones. */
export function errorAnswer(status: number, options: { description?: string; examples?: Examples } = {}) {
  const description = options.description ?? ERROR_DESCRIPTIONS[status] ?? 'error';
  const typical = ERROR_EXAMPLES[status];
  const examples =
    options.examples ??
    (typical ? { [typical.error.code]: { summary: typical.error.code, value: typical } } : undefined);
  return json(description, ErrorEnvelope, {
    ...(status === 429 ? { headers: RetryAfterHeader } : {}),
    ...(examples ? { examples } : {}),
  });
}

/** The error answers a route documents, all in the envelope. */
export function errors(...statuses: number[]): Record<number, ReturnType<typeof errorAnswer>> {
  return Object.fromEntries(statuses.map((status) => [status, errorAnswer(status)]));
}
