import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { named } from './components.ts';

export { ErrorEnvelope, errorAnswer, errorExample, errors, json, media, empty } from './responses.ts';

/**
 * `x-problem` says in words what a value must be: the validation error names the field with it
 * instead of printing the schema's pattern (ajv's own message). It is also shown in the OpenAPI document.
 */
const problem = (text: string) => ({ 'x-problem': text });

const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]*$';
const PRINTABLE_ASCII = '^[\\x21-\\x7e]+$';

/** Free text without control characters (NUL breaks some stores and every log reader). */
export const Text = (maxLength: number, minLength = 1) =>
  Type.String({ minLength, maxLength, pattern: NO_CONTROL_CHARACTERS, ...problemOfText(minLength, maxLength) });

function problemOfText(minLength: number, maxLength: number) {
  const size = minLength > 0 ? `1 to ${maxLength} characters` : `at most ${maxLength} characters`;
  return problem(`must be text of ${size}, without control characters`);
}

/** An identifier: printable ASCII without spaces. */
export const Id = (maxLength = 128) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: PRINTABLE_ASCII,
    ...problem(`must be 1 to ${maxLength} printable ASCII characters, without spaces`),
  });

/** An instant as sent: checked strictly by the domain, so only its size and characters are limited here. */
export const InstantIn = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: PRINTABLE_ASCII,
  description: 'ISO 8601 UTC timestamp, e.g. 2026-05-01T18:30:00Z',
  ...problem('must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z'),
});
export const Instant = Type.String({ description: 'ISO 8601 UTC timestamp' });
export const NullableInstant = Type.Union([Type.String(), Type.Null()], {
  description: 'ISO 8601 UTC timestamp or null',
});
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string; 'x-problem'?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** The paging fields of every list answer: the cursor of the next page (null at the end) and whether there is one. */
export const PAGE_FIELDS = {
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass it as `cursor` for the next page; null on the last page',
  }),
  has_more: Type.Boolean({ description: 'whether another page follows' }),
};

export const PageQuery = Type.Object({
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,5}$',
      description: 'page size, 1 to 1000 (default 100)',
      ...problem('must be a whole number from 1 to 1000'),
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 64,
      pattern: '^[\\x21-\\x7e]*$',
      description: 'next_cursor of the previous page',
      ...problem('must be the next_cursor of a previous page, as it was given'),
    }),
  ),
});

/** The security schemes of the OpenAPI document: two credentials, both sent as a bearer token. */
export const SECURITY_SCHEMES = {
  ScannerApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      "A scanner's API key (`sk_live_…`), from enrolment. Scoped to one event and optionally one gate; it expires at `scope.expires_at`.",
  },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The organizer's admin token (`ADMIN_TOKEN`, or the one printed at first start): the built-in owner. " +
      "Or a person's personal API token (`iat_…`, `POST /admin/v1/api-tokens`), acting with that person's role.",
  },
  MetricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: '`METRICS_TOKEN` for `GET /metrics`; the admin token when `METRICS_TOKEN` is unset.',
  },
  ConsoleSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'issuer_console_session',
    description:
      "The organizer console's session cookie, from `POST /admin/v1/session`. Accepted by the admin API in place of the admin token; writes with it also need `X-CSRF-Token`.",
  },
} as const;

/** Routes a scanner calls with its API key. */
export const ScannerAuth = [{ ScannerApiKey: [] as string[] }];
/** Routes of the organizer's admin API. */
export const AdminAuth = [{ AdminToken: [] as string[] }];
/** Routes without a credential (discovery; enrolment, whose token is in the body). */
export const NoAuth: Record<string, string[]>[] = [];

/** Every admin route: the admin tag and the admin token. */
export const ADMIN_ROUTE = { tags: ['admin'], security: AdminAuth };

/** An admin request body: an unknown field is refused (400 naming it), never silently dropped. */
export const Strict = <T extends TProperties>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

/** The body of admin POSTs that take none (revoke, reissue, rotate): `{}` or no body at all. */
export const NoBody = named('EmptyRequest', Strict({}, 'No fields: send `{}` or no body'));
